/**
 * The arguments of `polyhop store set` that point `kb` at the Virtuoso at `base`
 * (`http://host:port`): its query, update and Graph Store endpoints, digest auth as dba (the
 * password comes from POLYHOP_STORE_PASSWORD). `more` go last, so a repeated option overrides.
 */
export function virtuosoStoreSetArgs(kb: string, base: string, ...more: string[]): string[] {
  return [
    'store',
    'set',
    '--kb',
    kb,
    '--query-url',
    `${base}/sparql`,
    '--update-url',
    `${base}/sparql-auth`,
    '--graph-store-url',
    `${base}/sparql-graph-crud-auth`,
    '--auth',
    'digest',
    '--user',
    'dba',
    ...more,
  ];
}

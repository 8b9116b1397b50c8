import { z } from 'zod';

/** Query parameters that carry a credential (`?password=`, `?pwd=`, `?api_key=`, `?access_token=`…). */
const SECRET_PARAM = /^(?:pass(?:word|wd)?|pwd|secret|token|access[_-]?token|api[_-]?key|key|auth)$/iu;

const httpUrl = z
  .string()
  .max(2000)
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'an http:// or https:// URL')
  // Credentials go in `auth`, where they are kept out of replies and logs; never in a URL.
  .refine(
    (u) => URL.canParse(u) && new URL(u).username === '' && new URL(u).password === '',
    'no user or password in the URL (use auth)',
  )
  // …nor in its query string, where it would show in stores.json, `store show` and logs as well.
  .refine(
    (u) => !URL.canParse(u) || ![...new URL(u).searchParams.keys()].some((k) => SECRET_PARAM.test(k)),
    'no password, token or key in the URL (use auth)',
  );

/** How Polyhop signs in to a store. The password never leaves the engine (see {@link redactStoreConfig}). */
export const storeAuthSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('none') }).strict(),
  z.object({ kind: z.literal('basic'), username: z.string().min(1).max(200), password: z.string().max(1000) }).strict(),
  z
    .object({ kind: z.literal('digest'), username: z.string().min(1).max(200), password: z.string().max(1000) })
    .strict(),
]);
export type StoreAuth = z.output<typeof storeAuthSchema>;

/**
 * One KB's external SPARQL 1.1 store: the three standard endpoints (Protocol for queries, Update,
 * Graph Store HTTP Protocol) and the named graph that holds the KB. A server that serves all of
 * them at one URL (Oxigraph server, Fuseki's dataset URL) gets that URL three times.
 */
export const storeConfigSchema = z
  .object({
    /** SPARQL 1.1 Protocol query endpoint (Virtuoso: /sparql, or /sparql-auth when queries need auth). */
    queryUrl: httpUrl,
    /** SPARQL 1.1 Update endpoint (Virtuoso: /sparql-auth). */
    updateUrl: httpUrl,
    /** Graph Store HTTP Protocol endpoint; the graph goes in `?graph=` (Virtuoso: /sparql-graph-crud-auth). */
    graphStoreUrl: httpUrl,
    /** The named graph of this KB (absolute IRI). */
    graphIri: z.string().max(2000).url(),
    auth: storeAuthSchema,
    /** Quads per request when publishing. Default: 50,000. */
    batchQuads: z.number().int().min(100).max(1_000_000).default(50_000),
    /** Sync after every indexing run, RDF import and document removal. Default: true. */
    autoSync: z.boolean().default(true),
    /** Limit for one request (query, publishing batch, update), in ms: past it the request fails with TIMEOUT. Default: 300,000. */
    requestTimeoutMs: z.number().int().min(1000).max(3_600_000).default(300_000),
  })
  .strict();
export type StoreConfig = z.output<typeof storeConfigSchema>;

/** What leaves the engine: the same, with the password replaced by whether there is one. */
export type RedactedStoreConfig = Omit<StoreConfig, 'auth'> & {
  auth: { kind: StoreAuth['kind']; username?: string; hasPassword: boolean };
};

export function redactStoreConfig(config: StoreConfig): RedactedStoreConfig {
  const { auth, ...rest } = config;
  return {
    ...rest,
    auth:
      auth.kind === 'none'
        ? { kind: 'none', hasPassword: false }
        : { kind: auth.kind, username: auth.username, hasPassword: auth.password.length > 0 },
  };
}

/** Identifies where the published copy lives: a change of it means the next sync publishes in full. */
export function storeTarget(config: StoreConfig): string {
  return JSON.stringify([config.graphStoreUrl, config.updateUrl, config.graphIri]);
}

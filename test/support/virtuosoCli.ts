import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { polyhopInProcess, type CliRun } from './cliInProcess.js';
import { StoreProxy } from './storeProxy.js';
import { type VirtuosoInstance, startVirtuoso } from './virtuoso.js';

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

/** What {@link virtuosoCliSuite} sets up; its fields are there from the suite's `beforeAll` on. */
export interface VirtuosoCliSuite {
  /** A Virtuoso of its own, on Debian's default limits. */
  virtuoso: VirtuosoInstance;
  /** A proxy in front of it, for a test that acts on a request as it arrives. */
  proxy: StoreProxy;
  /** The CLI's data folder, and room for the test's own files. */
  dir: string;
  /** Runs `polyhop` in process on `dir`. */
  polyhop(...args: string[]): Promise<CliRun>;
  /** Runs `polyhop --json`, expects exit code 0, and parses what it printed. */
  json<T>(...args: string[]): Promise<T>;
  /** `polyhop store set`, pointing `kb` at the Virtuoso at `base` ({@link virtuosoStoreSetArgs}). */
  storeSet(kb: string, base: string, ...more: string[]): Promise<CliRun>;
}

/**
 * For the `describe` it is called in: starts a Virtuoso and a proxy in front of it, makes a data
 * folder (named from `prefix`), and sets POLYHOP_STORE_PASSWORD to the store's, all before the
 * suite; undoes them after it.
 */
export function virtuosoCliSuite(prefix: string): VirtuosoCliSuite {
  const suite = {
    polyhop: (...args: string[]) => polyhopInProcess(suite.dir, args),
    json: async <T>(...args: string[]): Promise<T> => {
      const run = await suite.polyhop('--json', ...args);
      expect(run, run.err).toMatchObject({ code: 0 });
      return JSON.parse(run.out) as T;
    },
    storeSet: (kb: string, base: string, ...more: string[]) =>
      suite.polyhop(...virtuosoStoreSetArgs(kb, base, ...more)),
  } as VirtuosoCliSuite;
  beforeAll(async () => {
    suite.virtuoso = await startVirtuoso();
    suite.proxy = await StoreProxy.start(suite.virtuoso.httpPort);
    suite.dir = mkdtempSync(join(tmpdir(), prefix));
    process.env.POLYHOP_STORE_PASSWORD = suite.virtuoso.password;
  });
  afterAll(async () => {
    delete process.env.POLYHOP_STORE_PASSWORD;
    await suite.proxy?.close();
    await suite.virtuoso?.dispose();
    if (suite.dir) rmSync(suite.dir, { recursive: true, force: true });
  });
  return suite;
}

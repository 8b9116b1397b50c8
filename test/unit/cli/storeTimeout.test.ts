import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { polyhopInProcess } from '../../support/cliInProcess.js';
import { engineWithSmallKb, startSilentStore, type SilentStore } from '../../support/silentStore.js';

/**
 * Issue 24 point 15 from the CLI: `polyhop store set --timeout` against a store that accepts
 * connections and never answers. Without the option the publish would wait the default 5 minutes
 * (and this test would run into vitest's limit); with it the command ends with the store, the limit
 * and the option named, and a non-zero exit.
 */
describe('polyhop store set --timeout, against a store that never answers', () => {
  let engine: Engine;
  let dataDir: string;
  let dispose: () => Promise<void>;
  let silent: SilentStore;
  let base: string;

  beforeAll(async () => {
    silent = await startSilentStore();
    base = silent.base;
    ({ engine, dataDir, dispose } = await engineWithSmallKb());
  });
  afterAll(async () => {
    await dispose();
    silent.close();
  });

  it('store publish gives up after the limit set with --timeout, says so, and exits non-zero', async () => {
    const set = await polyhopInProcess(
      dataDir,
      ['store', 'set', '--kb', 'small', '--query-url', `${base}/sparql`, '--timeout', '2000', '--no-auto-sync'],
      { engine },
    );
    expect(set.code).toBe(0);
    expect(set.out).toContain('timeout: 2,000 ms per request');

    const published = await polyhopInProcess(dataDir, ['store', 'publish', '--kb', 'small'], { engine });
    expect(published.code).not.toBe(0);
    expect(published.err).toContain(`TIMEOUT: SPARQL store ${base}: no answer within 2000 ms`);
    expect(silent.connections()).toBeGreaterThan(0); // it did reach the store: the limit, not a refusal, ended it
  }, 60_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DoctorReport, StoreStatus } from '../../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../../src-main/engine/api/Engine.js';
import { networkLine } from '../../../../src-main/cli/format.js';
import { engineWithSmallKb, startSilentStore, type SilentStore } from '../../../support/silentStore.js';
import { call, runJobToEnd } from '../../../support/tempEngine.js';

/**
 * A store that accepts connections and never answers (a hung server, a firewall that holds the
 * connection), and SERVICE clauses: issue 24 points 15 and "SERVICE passes the read-only check".
 */
describe('a store that never answers, and federated queries', () => {
  let engine: Engine;
  let dispose: () => Promise<void>;
  let silent: SilentStore;
  let base: string;

  beforeAll(async () => {
    silent = await startSilentStore();
    base = silent.base;
    ({ engine, dispose } = await engineWithSmallKb());
  });
  afterAll(async () => {
    await dispose();
    silent.close();
  });

  it('a publish fails after the timeout set with the store, reporting the wait meanwhile', async () => {
    const status = await call<StoreStatus>(engine, 'store:set', {
      kb: 'small',
      queryUrl: `${base}/sparql`,
      requestTimeoutMs: 6000,
      autoSync: false,
    });
    expect(status.config?.requestTimeoutMs).toBe(6000);
    const waits: string[] = [];
    const off = engine.onEvent((e) => {
      if (e.name === 'job:progress' && e.payload.stage === 'waiting') waits.push(e.payload.message ?? '');
    });
    const job = await runJobToEnd(engine, 'store:publish', { kb: 'small' });
    off();
    expect(job.status).toBe('failed');
    expect(job.error).toMatchObject({ code: 'TIMEOUT', message: expect.stringMatching(/no answer within 6000 ms/) });
    expect(waits[0]).toMatch(
      /^waiting for the store's answer: 5 s of the 6 s limit \(`polyhop store set --timeout`\)$/,
    );
    // The setting is kept when other fields change.
    await call(engine, 'store:set', { kb: 'small', queryUrl: `${base}/sparql`, autoSync: false });
    expect((await call<StoreStatus>(engine, 'store:show', { kb: 'small' })).config?.requestTimeoutMs).toBe(6000);
  });

  it("doctor's network line names the configured store", async () => {
    const report = await call<DoctorReport>(engine, 'system:doctor', {});
    expect(report.storeOrigins).toEqual([base]);
    expect(networkLine(report)).toMatch(new RegExp(`SPARQL stores: ${base.replace(/\./g, '\\.')}\\)$`));
  });

  it('refuses SERVICE, on the view and the store, unless allowService is set; nothing is sent', async () => {
    const before = silent.connections();
    const federated = `SELECT * WHERE { SERVICE <${base}/elsewhere> { ?s ?p ?o } }`;
    for (const target of ['view', 'store'] as const) {
      for (const allowUpdate of [false, true]) {
        expect(await engine.call('sparql:query', { kb: 'small', query: federated, target, allowUpdate })).toMatchObject(
          {
            ok: false,
            error: {
              code: 'NETWORK_BLOCKED',
              message: expect.stringMatching(/SERVICE .* refused unless allowService/),
            },
          },
        );
      }
    }
    // Nested in an OPTIONAL of a sub-select, or hidden in an update.
    for (const query of [
      `SELECT * WHERE { { SELECT ?s WHERE { OPTIONAL { SERVICE SILENT <${base}/x> { ?s ?p ?o } } } } }`,
      `INSERT { ?s ?p ?o } WHERE { SERVICE <${base}/x> { ?s ?p ?o } }`,
    ])
      expect(await engine.call('sparql:query', { kb: 'small', query, allowUpdate: true })).toMatchObject({
        ok: false,
        error: { code: 'NETWORK_BLOCKED' },
      });
    expect(silent.connections()).toBe(before);
    // Allowed, the view's own engine is asked (and answers in its own words, whatever they are).
    const allowed = await engine.call('sparql:query', {
      kb: 'small',
      query: federated,
      allowService: true,
      timeoutMs: 3000,
    });
    expect(allowed.ok ? null : allowed.error.code).not.toBe('NETWORK_BLOCKED');
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { KbInfo, KbSummary, SparqlResult } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';
import { ontologyTurtle } from '../../support/ontologyTurtle.js';
import { call, runJobToEnd, tempEngine } from '../../support/tempEngine.js';

/** Exits of the worker threads the engine asked to stop: what {@link settle} waits for, instead of a sleep. */
const { stopping, stops } = vi.hoisted(() => ({ stopping: new Set<Promise<unknown>>(), stops: { count: 0 } }));
import type * as WorkerThreads from 'node:worker_threads';

vi.mock('node:worker_threads', async (importOriginal) => {
  const threads = await importOriginal<typeof WorkerThreads>();
  class TrackedWorker extends threads.Worker {
    readonly #exited = new Promise((resolve) => this.once('exit', resolve));
    override terminate(): Promise<number> {
      stopping.add(this.#exited);
      stops.count++;
      return super.terminate();
    }
  }
  return { ...threads, Worker: TrackedWorker };
});

/**
 * Issue 17 #1: kb:delete while the KB's RDF view was loading ended the engine process with an
 * unhandled rejection ("RDF worker terminated"). Every way of ending a view (delete, rename,
 * rebuild, quitting) is run against a view that is still loading, at many moments of its load;
 * nothing may escape, and the engine keeps answering.
 */
describe('RDF view ended while it loads', () => {
  const escaped: unknown[] = [];
  const onRejection = (reason: unknown): void => void escaped.push(reason);
  const onException = (error: unknown): void => void escaped.push(error);
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-rdfview-'));
  const backup = join(dir, 'seed.sqlite');
  let engine: Engine;
  let dispose: () => Promise<void>;
  let seedTriples = 0;

  /** Event-loop turns to wait after kb:info started the load: from "at once" to "well into it". */
  const MOMENTS = [0, 1, 2, 3, 4, 6, 8, 11, 15, 20, 27];
  /** For the cases that also wait for a whole load after each moment. */
  const SOME_MOMENTS = [0, 3, 11, 27];

  beforeAll(async () => {
    process.on('unhandledRejection', onRejection);
    process.on('uncaughtException', onException);
    ({ engine, dispose } = await tempEngine({ embedder: new NgramEmbedder(16) }));
    const file = join(dir, 'ontology.ttl');
    writeFileSync(file, ontologyTurtle(20_000));
    await call(engine, 'kb:create', { name: 'seed' });
    const imported = await runJobToEnd(engine, 'rdf:import', { kb: 'seed', inputPath: file });
    expect(imported.error).toBeNull();
    const backedUp = await runJobToEnd(engine, 'kb:backup', { kb: 'seed', outputPath: backup });
    expect(backedUp.error).toBeNull();
    seedTriples = (await call<KbInfo>(engine, 'kb:info', { kb: 'seed' })).tripleCount;
  });

  beforeEach(() => {
    escaped.length = 0;
  });

  afterAll(async () => {
    await dispose();
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
    rmSync(dir, { recursive: true, force: true });
  });

  /** A fresh copy of the seed KB whose view has just started loading. */
  async function loadingCopy(on: Engine, name: string): Promise<void> {
    const restored = await runJobToEnd(on, 'kb:restore', { inputPath: backup, name });
    expect(restored.error).toBeNull();
    const info = await call<KbInfo>(on, 'kb:info', { kb: name });
    expect(info.rdf.state).toBe('loading');
  }

  const turns = async (n: number): Promise<void> => {
    for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  /** Waits for every worker the engine stopped to exit, and for the rejections its exit causes, before looking for escapes. */
  const settle = async (): Promise<void> => {
    await turns(5);
    while (stopping.size > 0) {
      const exits = [...stopping];
      stopping.clear();
      await Promise.all(exits);
      await turns(5);
    }
  };

  it('kb:delete at any moment of the load', async () => {
    for (const [i, n] of MOMENTS.entries()) {
      await loadingCopy(engine, `delete-${i}`);
      await turns(n);
      // A screen asking for the KB while it is being deleted gets NOT_FOUND, and no session (with
      // a view whose worker would run for ever) is opened again on the KB that goes.
      const [deleted, info] = await Promise.all([
        engine.call('kb:delete', { kb: `delete-${i}` }),
        engine.call('kb:info', { kb: `delete-${i}` }),
      ]);
      expect(deleted.ok).toBe(true);
      expect(info).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    }
    // Each deleted KB stopped its loading view's worker: what settle waited for.
    expect(stops.count).toBeGreaterThanOrEqual(MOMENTS.length);
    await settle();
    expect(escaped).toEqual([]);
    const names = (await call<KbSummary[]>(engine, 'kb:list', {})).map((k) => k.name);
    expect(names.filter((n) => n.startsWith('delete-'))).toEqual([]);
  });

  it('kb:rename at any moment of the load; the view then finishes and answers', async () => {
    for (const [i, n] of SOME_MOMENTS.entries()) {
      await loadingCopy(engine, `rename-${i}`);
      await turns(n);
      await call(engine, 'kb:rename', { kb: `rename-${i}`, newName: `renamed-${i}` });
      const count = await call<SparqlResult>(engine, 'sparql:query', {
        kb: `renamed-${i}`,
        query: 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }',
        timeoutMs: 120_000,
      });
      expect(Number(count.rows[0]?.n)).toBeGreaterThan(seedTriples);
      await call(engine, 'kb:delete', { kb: `renamed-${i}` });
    }
    await settle();
    expect(escaped).toEqual([]);
  });

  it('rebuild, and a rebuild followed by kb:delete, at any moment of the load', async () => {
    const rounds = [
      ...MOMENTS.map((n) => ({ n, thenDelete: true })),
      ...SOME_MOMENTS.map((n) => ({ n, thenDelete: false })),
    ];
    for (const [i, { n, thenDelete }] of rounds.entries()) {
      await loadingCopy(engine, `rebuild-${i}`);
      await turns(n);
      const { rdf } = engine.kbs.get(`rebuild-${i}`);
      const rebuilt = rdf.rebuild();
      if (thenDelete) {
        await turns(n);
        await call(engine, 'kb:delete', { kb: `rebuild-${i}` });
        // Whoever awaited the rebuild learns it was cut short; that is no crash.
        await expect(rebuilt).rejects.toThrow(/closed while it was loading/);
      } else {
        // The load that was overtaken settles with the rebuild, not before it.
        await rebuilt;
        expect(rdf.status.state).toBe('ready');
        await call(engine, 'kb:delete', { kb: `rebuild-${i}` });
      }
    }
    await settle();
    expect(escaped).toEqual([]);
  });

  it('quitting (engine dispose) at any moment of the load', async () => {
    for (const n of [0, 2, 5, 11, 20]) {
      const other = await tempEngine({ embedder: new NgramEmbedder(16) });
      await loadingCopy(other.engine, 'quit');
      await turns(n);
      await other.dispose();
    }
    await settle();
    expect(escaped).toEqual([]);
  });

  it('the engine still answers after all of it', async () => {
    const count = await call<SparqlResult>(engine, 'sparql:query', {
      kb: 'seed',
      query: 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }',
      timeoutMs: 120_000,
    });
    expect(Number(count.rows[0]?.n)).toBeGreaterThan(seedTriples);
    expect((await call<KbInfo>(engine, 'kb:info', { kb: 'seed' })).rdf.state).toBe('ready');
  });
});

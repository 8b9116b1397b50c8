import { afterAll, describe, expect, it } from 'vitest';
import { PolyhopError } from '../../../src-main/engine/base/errors.js';
import { mintIri } from '../../../src-main/engine/base/iri.js';
import { buildQuads } from '../../../src-main/engine/kb/rdf/buildQuads.js';
import type { MemoryRdfSource } from '../../../src-main/engine/kb/rdf/MemoryRdfSource.js';
import { RdfView, type RdfViewStatus } from '../../../src-main/engine/kb/rdf/RdfView.js';
import { distinctWeirdNames, syntheticSource } from './rdfFixtures.js';

const PREFIX = 'PREFIX ph: <https://polyhop.app/ontology#> ';
const views: RdfView[] = [];
afterAll(async () => {
  for (const v of views) await v.dispose();
});

const ONLY_IN_LAST_DOCUMENT = 'SAILS_FROM_TEST';

function fixture(): MemoryRdfSource {
  const names = ['Odysseus', 'Penelope', 'Ithaca', 'Telemachus', ...distinctWeirdNames(5, 60)];
  const source = syntheticSource({ seed: 9, entities: names, documents: 3, chunksPerDocument: 4, triples: 300 });
  source.tripleList.push(
    {
      id: 1001,
      sourceId: 1,
      sourceName: 'Odysseus',
      relation: 'HAS_KING_TEST',
      targetId: 3,
      targetName: 'Ithaca',
      description: 'Odysseus rules Ithaca.',
      chunkIds: [1],
    },
    {
      id: 1002,
      sourceId: 1,
      sourceName: 'Odysseus',
      relation: 'HAS_WIFE_TEST',
      targetId: 2,
      targetName: 'Penelope',
      description: null,
      chunkIds: [1, 5],
    },
    {
      // The only triple of its relation, in the last document: removing that document orphans it.
      id: 1003,
      sourceId: 4,
      sourceName: 'Telemachus',
      relation: ONLY_IN_LAST_DOCUMENT,
      targetId: 3,
      targetName: 'Ithaca',
      description: null,
      chunkIds: [source.chunkList.find((c) => c.documentId === source.documentList.at(-1)!.id)!.id],
    },
  );
  return source;
}

function open(source: MemoryRdfSource, onStatus?: (s: RdfViewStatus) => void): RdfView {
  const view = RdfView.open(source, { batchSize: 500, onStatus });
  views.push(view);
  return view;
}

/** Everything the view holds, sorted, for comparing an incrementally updated view with a fresh one. */
async function contents(view: RdfView): Promise<string[]> {
  const r = await view.query('SELECT ?s ?p ?o WHERE { ?s ?p ?o }', { maxRows: 100_000 });
  expect(r.truncated).toBe(false);
  return r.rows.map((row) => JSON.stringify([row.s, row.p, row.o])).sort();
}

describe('RdfView', () => {
  it('opens without waiting for the load, then answers SELECT, ASK, CONSTRUCT and DESCRIBE', async () => {
    const source = fixture();
    let expected = 0;
    for await (const batch of buildQuads(source, { kind: 'all' })) expected += batch.length;
    const states: string[] = [];
    // Still loading when open returns: it did not wait for the load (a timing bound would fail on a busy machine).
    const view = open(source, (s) => states.push(s.state));
    expect(view.status.state).toBe('loading');
    await view.load();
    expect(view.status).toEqual({ state: 'ready', triples: expected });
    expect(states[0]).toBe('loading');
    expect(states.at(-1)).toBe('ready');

    const wife = await view.query(
      `${PREFIX} SELECT ?wife ?d WHERE { ?o ph:hasName "Odysseus" . ?t ph:hasSource ?o ; ph:hasRelationship/ph:hasName "HAS_WIFE_TEST" ; ph:hasTarget/ph:hasName ?wife . OPTIONAL { ?t ph:hasDescription ?d } }`,
    );
    expect(wife).toMatchObject({
      kind: 'select',
      columns: ['wife', 'd'],
      rows: [{ wife: 'Penelope', d: null }],
      truncated: false,
    });
    // The direct edge makes plain graph patterns work too.
    const kingOf = mintIri(source.baseIri, ['relation', 'HAS_KING_TEST']);
    expect(kingOf).toBe('https://polyhop.test/kb/fuzz/relation/HAS%5FKING%5FTEST');
    const direct = await view.query(`SELECT ?x WHERE { ?k <${kingOf}> ?x }`);
    expect(direct.rows).toContainEqual({ x: 'https://polyhop.test/kb/fuzz/entity/Ithaca' });

    const capped = await view.query('SELECT * WHERE { ?s ?p ?o }', { maxRows: 10 });
    expect(capped.rows).toHaveLength(10);
    expect(capped.truncated).toBe(true);

    expect(await view.query(`${PREFIX} ASK { ?e ph:hasName "Penelope" }`)).toMatchObject({
      kind: 'ask',
      boolean: true,
    });
    expect(await view.query(`${PREFIX} ASK { ?e ph:hasName "Circe" }`)).toMatchObject({ kind: 'ask', boolean: false });

    const graph = await view.query(
      `${PREFIX} CONSTRUCT { ?e ph:hasName ?n } WHERE { ?e a ph:Entity ; ph:hasName ?n }`,
      { maxRows: 5 },
    );
    expect(graph.kind).toBe('graph');
    expect(graph.truncated).toBe(true);
    expect(graph.turtle).toContain('@prefix ph: <https://polyhop.app/ontology#> .');
    expect(graph.turtle?.match(/ph:hasName/g)).toHaveLength(5);
    const describe = await view.query('DESCRIBE <https://polyhop.test/kb/fuzz/entity/Penelope>');
    expect(describe.turtle).toMatch(/^entity:Penelope /m);
    expect(describe.turtle).toContain('ph:hasName "Penelope"');
  });

  it('lets the event loop turn between loaded batches (records are read synchronously)', async () => {
    // A chain of setImmediate callbacks counts event-loop turns; each loaded batch must see a new one.
    let turns = 0;
    let counting = true;
    const tick = (): void => {
      turns++;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    const seen: number[] = [];
    const view = open(
      syntheticSource({
        seed: 4,
        entities: distinctWeirdNames(6, 400),
        documents: 20,
        chunksPerDocument: 10,
        triples: 3000,
      }),
      (s) => {
        if (s.state === 'loading' && s.triples > 0) seen.push(turns);
      },
    );
    await view.load();
    counting = false;
    expect(seen.length).toBeGreaterThan(10);
    for (let i = 1; i < seen.length; i++) expect(seen[i], `batch ${i}`).toBeGreaterThan(seen[i - 1]!);
  });

  it('leaves no rejection unhandled when disposed while a batch is with the worker and the load waits for records', async () => {
    const escaped: unknown[] = [];
    const onRejection = (reason: unknown): void => void escaped.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      // The load sends the documents' batches, then waits here for the entities: its last batch is
      // still with the worker, which the dispose terminates meanwhile.
      const source = fixture();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let waiting!: () => void;
      const atGate = new Promise<void>((resolve) => (waiting = resolve));
      const entities = source.entities.bind(source);
      source.entities = async function* (ids?: readonly number[]) {
        waiting();
        await gate;
        yield* entities(ids);
      } as unknown as typeof source.entities;
      const view = RdfView.open(source, { batchSize: 5 });
      const loaded = view.load();
      await atGate;
      await view.dispose();
      // Two turns: the worker's exit rejects the batch, then Node reports what nobody handled.
      for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
      release();
      await expect(loaded).rejects.toThrow(/closed while it was loading/);
      expect(escaped).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });

  it('refuses to load a graph larger than its memory limit, saying why, instead of outgrowing the worker', async () => {
    const statuses: RdfViewStatus[] = [];
    const view = RdfView.open(fixture(), { batchSize: 500, maxQuads: 1000, onStatus: (s) => statuses.push(s) });
    views.push(view);
    const error = await view.query(`${PREFIX}SELECT * WHERE { ?s ?p ?o } LIMIT 1`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PolyhopError);
    expect(error).toMatchObject({
      code: 'UNSUPPORTED',
      message:
        /holds at most 1,000 statements in memory and this knowledge base makes about [\d,]+; publish it to an external SPARQL store and query it there, or export it/,
    });
    expect(view.status.state).toBe('error');
    expect(statuses.some((s) => s.state === 'loading' && s.triples > 0)).toBe(false); // nothing was loaded
  });

  it('refuses updates unless allowed, and reports syntax errors as BAD_INPUT', async () => {
    const view = open(fixture());
    for (const update of [
      'INSERT DATA { <http://x/a> <http://x/b> "c" }',
      '# comment\nPREFIX x: <http://x/#>\n DELETE WHERE { ?s ?p ?o }',
      'CLEAR ALL',
    ]) {
      await expect(view.query(update)).rejects.toMatchObject({
        code: 'BAD_INPUT',
        message: expect.stringMatching(/allowUpdate/),
      });
    }
    await expect(view.query('SELECT ?s WHERE { ?s ?p }')).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(view.query('hello')).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await view.load();
    const before = view.status.triples;
    expect(await view.query('INSERT DATA { <http://x/a> <http://x/b> "c" }', { allowUpdate: true })).toMatchObject({
      kind: 'update',
    });
    expect(view.status.triples).toBe(before + 1);
  });

  it('stops a runaway query at the time limit, answers TIMEOUT, and keeps serving from a rebuilt store', async () => {
    const view = open(fixture());
    await view.load();
    const triples = view.status.triples;
    // TIMEOUT, not a result: the limit stopped it (run to the end, the product would outlast the test).
    const error = await view
      .query('SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }', { timeoutMs: 800 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PolyhopError);
    expect((error as PolyhopError).code).toBe('TIMEOUT');
    expect(view.status.state).toBe('loading');
    const after = await view.query(`${PREFIX} SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }`, { timeoutMs: 30_000 });
    expect(Number(after.rows[0]?.n)).toBe(triples);
    expect(view.status.state).toBe('ready');
  });

  it('keeps up with documents added and removed and entities changed, matching a view rebuilt from scratch', async () => {
    const source = fixture();
    const removedDoc = source.documentList.pop();
    const removedChunks = source.chunkList.filter((c) => c.documentId === removedDoc?.id);
    const removedChunkIds = new Set(removedChunks.map((c) => c.id));
    const docTriples = source.tripleList.filter((t) => t.chunkIds.some((id) => removedChunkIds.has(id)));
    source.chunkList = source.chunkList.filter((c) => !removedChunkIds.has(c.id));
    // Like the database: triples keep only surviving provenance; those with none go.
    const withoutDoc = (list: typeof source.tripleList) =>
      list.flatMap((t) => {
        const chunkIds = t.chunkIds.filter((id) => !removedChunkIds.has(id));
        return chunkIds.length ? [{ ...t, chunkIds }] : [];
      });
    const full = source.tripleList;
    source.tripleList = withoutDoc(full);
    const view = open(source);
    await view.load();

    // Document added.
    source.documentList.push(removedDoc!);
    source.chunkList.push(...removedChunks);
    source.tripleList = full;
    await view.documentAdded(removedDoc!.id);
    const fresh1 = open(source);
    expect(await contents(view)).toEqual(await contents(fresh1));
    expect(docTriples.length).toBeGreaterThan(0);
    const relationNamed = async (name: string) =>
      (await view.query(`${PREFIX} SELECT ?r WHERE { ?r a ph:Relationship ; ph:hasName "${name}" }`)).rows.length;
    expect(await relationNamed(ONLY_IN_LAST_DOCUMENT)).toBe(1);

    // Entity renamed (merge) and summary changed.
    const penelope = source.entityList.find((e) => e.name === 'Penelope')!;
    penelope.name = 'Penelope of Ithaca';
    penelope.summary = 'Queen of Ithaca.';
    penelope.aliases = ['Penelope'];
    source.tripleList = source.tripleList.map((t) => ({
      ...t,
      sourceName: t.sourceId === penelope.id ? penelope.name : t.sourceName,
      targetName: t.targetId === penelope.id ? penelope.name : t.targetName,
    }));
    await view.entitiesChanged([penelope.id]);
    // Description written later (Enrich).
    const kingOf = source.tripleList.find((t) => t.id === 1002)!;
    kingOf.description = 'They married young.';
    await view.triplesChanged([1002]);
    expect(await contents(view)).toEqual(await contents(open(source)));

    // Document removed: the source already dropped what only it held.
    source.documentList = source.documentList.filter((d) => d.id !== removedDoc!.id);
    source.chunkList = source.chunkList.filter((c) => !removedChunkIds.has(c.id));
    source.tripleList = withoutDoc(source.tripleList);
    const live = new Set(source.tripleList.flatMap((t) => [t.sourceId, t.targetId]));
    source.entityList = source.entityList.filter((e) => live.has(e.id));
    await view.documentRemoved(removedDoc!.id);
    expect(await contents(view)).toEqual(await contents(open(source)));
    expect(await relationNamed(ONLY_IN_LAST_DOCUMENT)).toBe(0); // no triple asserts it any more
  });
});

/**
 * RDF view and export figures, each against a baseline measured in the same run:
 * - Turtle export throughput of the streaming exporter vs Oxigraph's own `store.dump` (one string);
 * - how long `RdfView.open` takes to return (must not wait for the load), the worst event-loop stall
 *   while the view loads in the background, and the time until the view is ready;
 * - a document removed: the view's incremental update vs loading the view again without it.
 * Usage: `npx tsx test/bench/rdf.bench.ts [--n 200000]` (n = quads, approximately).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store, defaultGraph } from 'oxigraph';
import { buildQuads } from '../../src-main/engine/kb/rdf/buildQuads.js';
import { exportRdf } from '../../src-main/engine/kb/rdf/exportRdf.js';
import { RdfSerializer } from '../../src-main/engine/kb/rdf/RdfSerializer.js';
import { RdfView } from '../../src-main/engine/kb/rdf/RdfView.js';
import { syntheticSource } from '../unit/kb/rdfFixtures.js';

export async function run(args: string[]): Promise<void> {
  const nIndex = args.indexOf('--n');
  const n = nIndex >= 0 ? Number(args[nIndex + 1]) : 200_000;
  // ~10 quads per triple, ~7 per entity, ~10 per chunk.
  const triples = Math.round(n / 16.5);
  const entities = Math.max(10, Math.round(triples / 4));
  const documents = Math.max(1, Math.round(n / 4000));
  const names = Array.from(
    { length: entities },
    (_, i) => `Entity ${i} «${String.fromCodePoint(0x4e00 + (i % 2000))}»`,
  );
  const source = syntheticSource({ seed: 1, entities: names, documents, chunksPerDocument: 20, triples });
  let quads = 0;
  for await (const batch of buildQuads(source, { kind: 'all' })) quads += batch.length;
  console.log(
    `rdf bench: ${quads.toLocaleString('en')} quads (${triples} triples, ${entities} entities, ${documents * 20} chunks)`,
  );

  const dir = mkdtempSync(join(tmpdir(), 'polyhop-rdf-bench-'));
  try {
    // 1. Export: ours (streaming to a file) vs Oxigraph dump (whole string, then one write).
    let t = performance.now();
    const ours = await exportRdf(source, join(dir, 'ours.ttl'), { format: 'turtle' });
    const oursMs = performance.now() - t;
    const store = new Store();
    const nq = new RdfSerializer('nquads');
    for await (const batch of buildQuads(source, { kind: 'all' }, { batchSize: 10_000 }))
      store.load(nq.write(batch), { format: 'application/n-quads', lenient: true });
    t = performance.now();
    const dumped = store.dump({ format: 'text/turtle', from_graph_name: defaultGraph() });
    const dumpMs = performance.now() - t;
    const dumpBytes = Buffer.byteLength(dumped);
    const oursMBs = ours.bytes / 1e6 / (oursMs / 1000);
    const dumpMBs = dumpBytes / 1e6 / (dumpMs / 1000);
    console.log(
      `export turtle: ours ${(ours.bytes / 1e6).toFixed(1)} MB in ${oursMs.toFixed(0)} ms = ${oursMBs.toFixed(1)} MB/s (file ${statSync(join(dir, 'ours.ttl')).size} B)`,
    );
    console.log(
      `export turtle: oxigraph store.dump ${(dumpBytes / 1e6).toFixed(1)} MB in ${dumpMs.toFixed(0)} ms = ${dumpMBs.toFixed(1)} MB/s (in memory, store already loaded)`,
    );
    // Oxigraph writes full IRIs (no prefixes), so its files are larger: compare quads/s as well.
    console.log(
      `export ratio ours/dump: ${(oursMBs / dumpMBs).toFixed(2)} in MB/s, ${(dumpMs / oursMs).toFixed(2)} in quads/s`,
    );

    // 2. Open and background load.
    let worstStallMs = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      worstStallMs = Math.max(worstStallMs, now - last - 10);
      last = now;
    }, 10);
    t = performance.now();
    const view = RdfView.open(source);
    const openMs = performance.now() - t;
    const openState = view.status.state;
    await view.load();
    const loadMs = performance.now() - t;
    clearInterval(ticker);
    console.log(
      `view open returned after ${openMs.toFixed(1)} ms (state then: ${openState}); ready after ${loadMs.toFixed(0)} ms = ${Math.round(view.status.triples / (loadMs / 1000)).toLocaleString('en')} quads/s`,
    );
    console.log(`worst main-thread stall while loading: ${worstStallMs.toFixed(0)} ms`);
    t = performance.now();
    const r = await view.query('SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }', { timeoutMs: 60_000 });
    console.log(`count query: ${r.rows[0]?.n} quads in ${(performance.now() - t).toFixed(0)} ms`);

    // 3. A document removed (as `docs:remove` and a watched folder's deletion do): the view's
    // incremental update vs loading the view again from the source without it.
    const gone = source.documentList[0]!.id;
    const goneChunks = new Set(source.chunkList.filter((c) => c.documentId === gone).map((c) => c.id));
    source.documentList = source.documentList.filter((d) => d.id !== gone);
    source.chunkList = source.chunkList.filter((c) => !goneChunks.has(c.id));
    source.tripleList = source.tripleList.flatMap((triple) => {
      const chunkIds = triple.chunkIds.filter((id) => !goneChunks.has(id));
      return chunkIds.length > 0 ? [{ ...triple, chunkIds }] : [];
    });
    t = performance.now();
    await view.documentRemoved(gone);
    const removeMs = performance.now() - t;
    t = performance.now();
    const reloaded = RdfView.open(source);
    await reloaded.load();
    const reloadMs = performance.now() - t;
    console.log(
      `document removed (${goneChunks.size} chunks): incremental ${removeMs.toFixed(0)} ms vs reloading the view ${reloadMs.toFixed(0)} ms = ${(removeMs / reloadMs).toFixed(3)}x (${view.status.triples} vs ${reloaded.status.triples} quads after)`,
    );
    await reloaded.dispose();
    await view.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run(process.argv.slice(2));

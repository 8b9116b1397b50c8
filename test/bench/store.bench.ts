/**
 * External SPARQL store (Virtuoso Open Source, started here on loopback like the tests do):
 * - publish throughput (quads/s) of a generated KB of `--quads` quads (default 20M, as issue 16 asks);
 * - p50 of a 2-hop SPARQL query on the store at that size, beside the in-memory view's p50 for the
 *   same query at `--view-quads` (default 1M), and the store's at that size too, so the ratio
 *   compares like with like.
 * Usage: `npm run bench store -- [--quads 20000000] [--view-quads 1000000] [--runs 21] [--buffers 200000]`.
 */
import Database from 'better-sqlite3';
import { migrate } from '../../src-main/engine/kb/migrations/migrate.js';
import { RdfView } from '../../src-main/engine/kb/rdf/RdfView.js';
import { KbIris } from '../../src-main/engine/kb/rdf/terms.js';
import { PH } from '../../src-main/engine/kb/rdf/vocabulary.js';
import type { MemoryRdfSource } from '../../src-main/engine/kb/rdf/MemoryRdfSource.js';
import { SparqlStoreClient } from '../../src-main/engine/kb/store/SparqlStoreClient.js';
import { storeConfigSchema } from '../../src-main/engine/kb/store/StoreConfig.js';
import { StoreJournal } from '../../src-main/engine/kb/store/StoreJournal.js';
import { syncStore } from '../../src-main/engine/kb/store/syncStore.js';
import { queryStore } from '../../src-main/engine/kb/store/queryStore.js';
import { syntheticSource } from '../unit/kb/rdfFixtures.js';
import { startVirtuoso } from '../support/virtuoso.js';
import { bareRepositoryContext } from '../support/bareRepositoryContext.js';
import { quantileOf } from '../../src-main/engine/base/quantile.js';
import { numberArg } from './support/benchArgs.js';

/** A KB of about `quads` quads (KbQuads writes ~16.5 per triple with its entities and chunks). */
function generated(quads: number, seed: number): MemoryRdfSource {
  const triples = Math.round(quads / 16.5);
  const entities = Math.max(10, Math.round(triples / 4));
  const names = Array.from({ length: entities }, (_, i) => `Entity ${i}`);
  return syntheticSource({
    seed,
    entities: names,
    documents: Math.max(1, Math.round(quads / 4000)),
    chunksPerDocument: 20,
    triples,
  });
}

/**
 * Two hops out from one entity along the KB's triples (ph:Triple nodes, as the ontology links
 * them). A variable-predicate form (`<e> ?r1 ?x . ?x ?r2 ?y`) took Virtuoso 7.2 20–27 s at 2M
 * quads (measured by hand); with the predicates bound it plans index lookups.
 */
function twoHop(source: MemoryRdfSource, i: number): string {
  const start = new KbIris(source.baseIri).entity(source.entityList[(i * 7919) % source.entityList.length]!.name).value;
  return `PREFIX ph: <${PH}> SELECT DISTINCT ?y WHERE { ?t1 ph:hasSource <${start}> ; ph:hasTarget ?x . ?t2 ph:hasSource ?x ; ph:hasTarget ?y }`;
}

async function p50(runs: number, run: (i: number) => Promise<unknown>): Promise<number> {
  await run(runs); // warm-up, not counted
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await run(i);
    times.push(performance.now() - t);
  }
  return quantileOf(times, 0.5);
}

export async function run(args: string[]): Promise<void> {
  const quads = numberArg(args, '--quads', 20_000_000);
  const viewQuads = numberArg(args, '--view-quads', 1_000_000);
  const runs = numberArg(args, '--runs', 21);
  const buffers = numberArg(args, '--buffers', 200_000);
  const virtuoso = await startVirtuoso({ buffers });
  try {
    const publish = async (source: MemoryRdfSource, graph: string): Promise<SparqlStoreClient> => {
      const config = storeConfigSchema.parse({
        queryUrl: virtuoso.queryUrl,
        updateUrl: virtuoso.authUrl,
        graphStoreUrl: virtuoso.graphStoreUrl,
        graphIri: graph,
        auth: { kind: 'digest', username: virtuoso.user, password: virtuoso.password },
      });
      const client = new SparqlStoreClient(config);
      const db = new Database(':memory:');
      migrate(db, ':memory:');
      const journal = new StoreJournal(bareRepositoryContext(db));
      journal.track(graph);
      const t = performance.now();
      let lastLog = t;
      const result = await syncStore(source, client, journal, {
        target: graph,
        batchQuads: config.batchQuads,
        onProgress: (p) => {
          if (performance.now() - lastLog > 30_000) {
            lastLog = performance.now();
            console.log(`  … ${p.quads.toLocaleString('en')} quads after ${((lastLog - t) / 1000).toFixed(0)} s`);
          }
        },
      });
      const s = (performance.now() - t) / 1000;
      console.log(
        `publish <${graph}>: ${result.quads.toLocaleString('en')} quads in ${s.toFixed(1)} s = ${Math.round(result.quads / s).toLocaleString('en')} quads/s`,
      );
      db.close();
      return client;
    };

    const small = generated(viewQuads, 2);
    const smallClient = await publish(small, 'http://bench.polyhop/small');
    const view = RdfView.open(small);
    await view.load();
    console.log(`in-memory view: ${view.status.triples.toLocaleString('en')} quads`);
    const viewP50 = await p50(runs, (i) => view.query(twoHop(small, i), { timeoutMs: 120_000, maxRows: 100_000 }));
    await view.dispose();
    const storeSmallP50 = await p50(runs, (i) =>
      queryStore(smallClient, small.baseIri, twoHop(small, i), { timeoutMs: 120_000, maxRows: 100_000 }),
    );

    const big = generated(quads, 1);
    const bigClient = await publish(big, 'http://bench.polyhop/big');
    const storeBigP50 = await p50(runs, (i) =>
      queryStore(bigClient, big.baseIri, twoHop(big, i), { timeoutMs: 120_000, maxRows: 100_000 }),
    );

    console.log(
      `2-hop query p50 (${runs} runs): in-memory view at ${viewQuads.toLocaleString('en')} quads ${viewP50.toFixed(1)} ms; store at ${viewQuads.toLocaleString('en')} ${storeSmallP50.toFixed(1)} ms; store at ${quads.toLocaleString('en')} ${storeBigP50.toFixed(1)} ms`,
    );
    // Like with like only: the store and the view at the same size (the big store's p50 stands on its own).
    console.log(
      `ratio store / view at ${viewQuads.toLocaleString('en')} quads: ${(storeSmallP50 / viewP50).toFixed(2)}`,
    );
  } finally {
    await virtuoso.dispose();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run(process.argv.slice(2));

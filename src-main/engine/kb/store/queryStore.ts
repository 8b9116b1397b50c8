import type { SparqlResult } from '../rdf/SparqlResult.js';
import { PolyhopError } from '../../base/errors.js';
import { graphResultTurtleCapped } from '../rdf/graphResultTurtle.js';
import { checkedSparql } from '../rdf/sparqlForm.js';
import type { SparqlOptions } from '../rdf/RdfView.js';
import { pagedSelect } from './pagedSelect.js';
import type { SparqlStoreClient, StoreRequestOptions } from './SparqlStoreClient.js';

/**
 * Runs a console query on the KB's graph in an external store, on the in-memory view's terms: the
 * same read-only default, the same time limit (here the request's; the store's own limits may be
 * lower) and the same result shape. The graph is the query's default graph (`default-graph-uri`).
 */
export async function queryStore(
  client: SparqlStoreClient,
  baseIri: string,
  sparql: string,
  options: SparqlOptions = {},
): Promise<SparqlResult> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxRows = options.maxRows ?? 1000;
  const { form, parsed } = checkedSparql(
    sparql,
    options.allowUpdate ?? false,
    'the store holds a copy published from the database and is read-only from here by default',
    options.allowService ?? false,
  );
  // A read goes without credentials unless the endpoint asks for them (least rights).
  const request = {
    timeoutMs,
    credentials: form === 'update' ? ('always' as const) : ('when-asked' as const),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  try {
    switch (form) {
      case 'select': {
        const first = await client.select(sparql, maxRows, request);
        const { storeMaxRows, ...r } = await pagedSelect(client, parsed, first, maxRows, request);
        return { kind: 'select', ...r, ...(storeMaxRows !== null ? { storeMaxRows } : {}), elapsedMs: elapsed() };
      }
      case 'ask':
        return {
          kind: 'ask',
          columns: [],
          rows: [],
          boolean: await client.ask(sparql, request),
          truncated: false,
          elapsedMs: elapsed(),
        };
      case 'construct':
      case 'describe': {
        const r = await client.graph(sparql, request);
        const { turtle, triples } = graphResultTurtleCapped(r.text, baseIri, r.format, maxRows);
        // A graph answer cannot be paged like a SELECT: one the store cut stays cut, and says so.
        const limit = r.storeMaxRows ?? (await storeRowLimit(client, triples, request));
        const cut = limit !== null && triples >= limit;
        return {
          kind: 'graph',
          columns: [],
          rows: [],
          turtle,
          truncated: triples > maxRows || cut,
          ...(cut ? { storeMaxRows: limit } : {}),
          elapsedMs: elapsed(),
        };
      }
      case 'update':
        await client.update(sparql, { ...request, idempotent: false });
        return { kind: 'update', columns: [], rows: [], truncated: false, elapsedMs: elapsed() };
    }
  } catch (error) {
    if (error instanceof PolyhopError && error.code === 'TIMEOUT') {
      throw new PolyhopError('TIMEOUT', `sparql: no answer from the store within ${timeoutMs} ms`, {
        details: { timeoutMs },
      });
    }
    throw error;
  }
}

/**
 * The store's row limit, if `triples` may have reached it: learned from a SELECT answer earlier,
 * else asked once with a SELECT of one row more (a store that cuts it says so in
 * `X-SPARQL-MaxRows`). Small answers (under 100 triples) are taken as whole.
 */
async function storeRowLimit(
  client: SparqlStoreClient,
  triples: number,
  request: StoreRequestOptions,
): Promise<number | null> {
  if (triples < 100) return null;
  if (client.knownMaxRows !== null) return client.knownMaxRows;
  const probe = await client.select(`SELECT ?s WHERE { ?s ?p ?o } LIMIT ${triples + 1}`, 0, request);
  return probe.storeMaxRows;
}

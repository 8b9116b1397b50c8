import { throwIfAborted } from '../../base/abort.js';
import type { AnswerGraphRecord } from '../AnswerGraphRepository.js';
import { answerGraphQuads } from '../rdf/answerGraphQuads.js';
import type { RdfRecordSource } from '../rdf/RdfRecordSource.js';
import { RdfSerializer } from '../rdf/RdfSerializer.js';
import { KbIris } from '../rdf/terms.js';
import { selectAll } from './pagedSelect.js';
import type { SparqlStoreClient, StoreRequestOptions } from './SparqlStoreClient.js';

/**
 * Which answer graphs a store holds for which KB graph, and whether each said its answer was
 * stale: a side graph of its own, as the owners are kept (graphOwner.ts), since a store that
 * follows the protocol answers a query with the KB's graph as its dataset and no named graphs,
 * so `GRAPH ?g` cannot list them.
 */
export const ANSWERS_GRAPH = 'urn:polyhop:store-answers';
const NS = 'https://polyhop.app/store#';

export interface AnswerSyncOptions {
  /** Send every answer graph again (a full publish), not only those the store lacks or holds with another staleness. */
  full: boolean;
  /** Answer graphs per update request. Default 50. */
  answersPerUpdate?: number;
  signal?: AbortSignal;
}

/**
 * Brings the store's answer graphs in line with the KB's (qa_answer_graphs): each answer in its
 * own named graph, as the RDF view and exports hold it (answerGraphQuads: its PROV-O graph and
 * its staleness); an answer the store lacks, or holds with another staleness, is sent (all of
 * them on a full publish), and one the KB no longer has (a KB restored from an older backup) is
 * dropped. Each step drops the graph before writing it, so repeating one is harmless. Returns
 * how many graphs were sent and dropped.
 */
export async function syncAnswers(
  source: Pick<RdfRecordSource, 'baseIri' | 'answerGraphs'>,
  client: SparqlStoreClient,
  options: AnswerSyncOptions,
): Promise<{ sent: number; dropped: number }> {
  if (!source.answerGraphs) return { sent: 0, dropped: 0 };
  const requestOptions: StoreRequestOptions = options.signal ? { signal: options.signal } : {};
  const held = await heldAnswers(client, requestOptions);
  const iris = new KbIris(source.baseIri);
  const step = options.answersPerUpdate ?? 50;
  let operations: string[] = [];
  let sent = 0;
  const flush = async (): Promise<void> => {
    if (operations.length === 0) return;
    throwIfAborted(options.signal);
    await client.update(operations.join(' ;\n'), requestOptions);
    operations = [];
  };
  for await (const record of source.answerGraphs()) {
    const stale = held.get(record.graphIri);
    held.delete(record.graphIri);
    if (!options.full && stale === (record.stale !== null)) continue;
    operations.push(...writeAnswer(record, iris, client.graphIri));
    sent++;
    if (sent % step === 0) await flush();
  }
  let dropped = 0;
  for (const graph of held.keys()) {
    operations.push(...dropAnswer(graph));
    if (++dropped % step === 0) await flush();
  }
  await flush();
  return { sent, dropped };
}

/** The answer graphs the side graph lists for the client's KB graph, with the staleness each was sent with. */
async function heldAnswers(client: SparqlStoreClient, options: StoreRequestOptions): Promise<Map<string, boolean>> {
  const query = `SELECT ?a ?stale WHERE { ?a <${NS}answerOf> <${client.graphIri}> ; <${NS}stale> ?stale }`;
  // Short of the whole list, an answer left off would be sent again (harmless) but one the KB no
  // longer has would stay.
  const all = await selectAll(client, query, { ...options, defaultGraph: ANSWERS_GRAPH }, 'the answer graphs it holds');
  return new Map(all.filter((r) => r.a).map((r) => [r.a as string, r.stale === 'true']));
}

function writeAnswer(record: AnswerGraphRecord, iris: KbIris, kbGraph: string): string[] {
  const g = `<${record.graphIri}>`;
  const triples = new RdfSerializer('ntriples').write(answerGraphQuads(record, iris));
  return [
    ...dropAnswer(record.graphIri),
    `INSERT DATA { GRAPH ${g} { ${triples} } }`,
    `INSERT DATA { GRAPH <${ANSWERS_GRAPH}> { ${g} <${NS}answerOf> <${kbGraph}> ; <${NS}stale> "${record.stale !== null}" } }`,
  ];
}

function dropAnswer(graph: string): string[] {
  const g = `<${graph}>`;
  return [
    `DROP SILENT GRAPH ${g}`,
    `DELETE { GRAPH <${ANSWERS_GRAPH}> { ${g} ?p ?o } } WHERE { GRAPH <${ANSWERS_GRAPH}> { ${g} ?p ?o } }`,
  ];
}

import { PolyhopError } from '../../base/errors.js';
import type { SparqlStoreClient, StoreRequestOptions } from './SparqlStoreClient.js';

/**
 * Which KB a graph in a store belongs to, kept beside the graphs in a side graph of their own
 * (one statement pair per KB graph), so the KB's graph holds only the KB and counts stay equal to
 * the view's. The id is the KB's registry id (its folder name: it survives renames, and a KB
 * restored under another name gets a new one, though it keeps the original's base IRI and with it
 * the default graph name).
 */
export const OWNERS_GRAPH = 'urn:polyhop:store-owners';
const NS = 'https://polyhop.app/store#';

export interface GraphOwner {
  /** Stable KB id (KbEntry.id). */
  id: string;
  /** The KB's name when it claimed the graph: for messages only. */
  name: string;
}

/** The owner recorded for the client's graph, or null when none is. */
export async function graphOwner(
  client: SparqlStoreClient,
  options: StoreRequestOptions = {},
): Promise<GraphOwner | null> {
  const g = client.graphIri;
  const r = await client.select(
    `SELECT ?id ?name WHERE { <${g}> <${NS}kbId> ?id . OPTIONAL { <${g}> <${NS}kbName> ?name } } LIMIT 1`,
    1,
    { ...options, defaultGraph: OWNERS_GRAPH },
  );
  const row = r.rows[0];
  return row?.id ? { id: row.id, name: row.name ?? row.id } : null;
}

/**
 * Records `owner` as the graph's owner, unless another KB owns it, or no KB does and the graph
 * already holds statements this KB never published (another tool's, or a KB's from before owners
 * were recorded): then CONFLICT, saying whose and how to take it over (`takeOver` replaces the
 * record; the publish that follows replaces the statements). `publishedHereBefore`: this KB's
 * journal records a completed publish into this graph, so unowned statements there are its own.
 */
export async function claimGraph(
  client: SparqlStoreClient,
  owner: GraphOwner,
  { takeOver, publishedHereBefore }: { takeOver: boolean; publishedHereBefore: boolean },
  options: StoreRequestOptions = {},
): Promise<void> {
  const current = await graphOwner(client, options);
  if (current?.id === owner.id && current.name === owner.name) return;
  const takeOverHint =
    `Give "${owner.name}" a graph of its own (\`polyhop store set --kb "${owner.name}" --graph IRI …\`), ` +
    `or take the graph over deliberately (\`polyhop store publish --kb "${owner.name}" --take-over\`, ` +
    "or Take over in the Graph screen's store panel)";
  if (current && current.id !== owner.id && !takeOver) {
    throw new PolyhopError(
      'CONFLICT',
      `store: graph <${client.graphIri}> belongs to the knowledge base "${current.name}" (id ${current.id}), ` +
        `not to "${owner.name}"; writing into it would replace that knowledge base's statements. ${takeOverHint}`,
      { details: { graphIri: client.graphIri, ownerId: current.id, ownerName: current.name } },
    );
  }
  if (!current && !takeOver && !publishedHereBefore) {
    const statements = await client.countGraph(options);
    if (statements > 0)
      throw new PolyhopError(
        'CONFLICT',
        `store: graph <${client.graphIri}> already holds ${statements} statements that no knowledge base claims ` +
          `(written by another tool, or by a Polyhop that did not record owners) and "${owner.name}" never published there; ` +
          `writing into it would replace them. ${takeOverHint}`,
        { details: { graphIri: client.graphIri, statements } },
      );
  }
  const g = `<${client.graphIri}>`;
  await client.update(
    `DELETE { GRAPH <${OWNERS_GRAPH}> { ${g} ?p ?o } } WHERE { GRAPH <${OWNERS_GRAPH}> { ${g} ?p ?o } } ;\n` +
      `INSERT DATA { GRAPH <${OWNERS_GRAPH}> { ${g} <${NS}kbId> ${literal(owner.id)} ; <${NS}kbName> ${literal(owner.name)} } }`,
    options,
  );
}

function literal(text: string): string {
  return JSON.stringify(text);
}

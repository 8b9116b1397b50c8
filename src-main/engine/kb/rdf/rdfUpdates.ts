import { PH } from './vocabulary.js';

/**
 * SPARQL 1.1 Update operations that take a KB's records out of a graph before they are written
 * again (the in-memory view and an external store share them). Each is `DELETE {…} WHERE {…}`, the
 * one form that takes `WITH <graph>`, so the same text serves the view's default graph and a
 * store's named graph.
 */
export interface DeleteOperation {
  template: string;
  where: string;
}

/** One update request of several operations; with `graphIri`, each works in that named graph. */
export function updateRequest(operations: readonly DeleteOperation[], graphIri?: string): string {
  const withGraph = graphIri === undefined ? '' : `WITH <${graphIri}> `;
  return `PREFIX ph: <${PH}>\n${operations.map((op) => `${withGraph}DELETE { ${op.template} } WHERE { ${op.where} }`).join(' ;\n')}`;
}

/** The triple nodes matched by `where` (binding ?t), with their direct entity→entity edges. */
export function deleteTriples(where: string): DeleteOperation[] {
  return [
    { template: '?s ?r ?o', where: `${where} ?t ph:hasSource ?s ; ph:hasRelationship ?r ; ph:hasTarget ?o` },
    { template: '?t ?p ?v', where: `${where} ?t ?p ?v` },
  ];
}

/** A document, its chunks, and every statement pointing at either. */
export function deleteDocument(documentIri: string): DeleteOperation[] {
  const chunk = `?c ph:belongsToDocument <${documentIri}> ; a ph:Chunk .`;
  return [
    { template: '?x ?p ?c', where: `${chunk} ?x ?p ?c` },
    { template: '?c ?p ?o', where: `${chunk} ?c ?p ?o` },
    { template: `?x ?p <${documentIri}>`, where: `?x ?p <${documentIri}>` },
    { template: `<${documentIri}> ?p ?o`, where: `<${documentIri}> ?p ?o` },
  ];
}

/** Entities (by record id), every triple they are in, and every statement about or pointing at them. */
export function deleteEntities(entityIds: readonly number[]): DeleteOperation[] {
  const match = `VALUES ?id { ${[...new Set(entityIds)].map(Number).join(' ')} } ?e a ph:Entity ; ph:hasRecordId ?id .`;
  return [
    ...deleteTriples(`${match} { ?t ph:hasSource ?e } UNION { ?t ph:hasTarget ?e }`),
    { template: '?x ?p ?e', where: `${match} ?x ?p ?e` },
    { template: '?e ?p ?o', where: `${match} ?e ?p ?o` },
  ];
}

/** Relationship nodes no triple asserts any more, with the links that point at them. */
export function deleteOrphanRelationships(): DeleteOperation[] {
  // The orphans are found once, in a subquery: written as one pattern with `?x ?p ?r`, Oxigraph ran
  // the NOT EXISTS once for each statement that points at a relationship (every triple's does), so a
  // document's removal took 260 s at 200k quads instead of a few ms.
  const orphan =
    '{ SELECT ?r WHERE { ?r a ph:Relationship . FILTER NOT EXISTS { ?t ph:hasRelationship ?r . ?t a ph:Triple } } }';
  return [
    { template: '?x ?p ?r', where: `${orphan} ?x ?p ?r` },
    { template: '?r ?p ?o', where: `${orphan} ?r ?p ?o` },
  ];
}

/**
 * Document↔relationship links (`hasRelationship`, and the relationship's `belongsToDocument`) no
 * triple from one of the document's chunks backs any more: left behind when the last such triple
 * went with an entity (a merge, a re-index elsewhere) while the document itself did not change.
 */
export function deleteStaleDocumentRelationships(): DeleteOperation[] {
  const stale =
    '?d a ph:Document ; ph:hasRelationship ?r . FILTER NOT EXISTS { ?t ph:hasRelationship ?r ; ph:belongsToChunk ?c . ?c ph:belongsToDocument ?d }';
  return [
    { template: '?d ph:hasRelationship ?r', where: stale },
    { template: '?r ph:belongsToDocument ?d', where: stale },
  ];
}

/** SELECT of the record ids of the entities the documents link to (column `id`). */
export function entityIdsOfDocumentsQuery(documentIris: readonly string[], graphIri?: string): string {
  const pattern = `VALUES ?d { ${documentIris.map((d) => `<${d}>`).join(' ')} } ?d ph:hasEntity ?e . ?e ph:hasRecordId ?id`;
  return `PREFIX ph: <${PH}> SELECT DISTINCT ?id WHERE { ${graphIri === undefined ? pattern : `GRAPH <${graphIri}> { ${pattern} }`} }`;
}

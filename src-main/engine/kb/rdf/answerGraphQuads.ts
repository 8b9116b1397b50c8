import { parse } from 'oxigraph';
import type { AnswerGraphRecord } from '../AnswerGraphRepository.js';
import { type KbIris, type RdfQuad, fromOxigraph, iri, literal, quad } from './terms.js';
import { RDF_TYPE, XSD_BOOLEAN, XSD_DATE_TIME, ph, prov } from './vocabulary.js';

/**
 * The quads of one stored answer graph: the N-Quads written when it was answered, and, once a
 * document it cites was re-indexed or removed, what says so (`ph:isStale true` and
 * `prov:wasInvalidatedBy` an activity that used that document), in the same graph.
 */
export function answerGraphQuads(record: AnswerGraphRecord, iris: KbIris): RdfQuad[] {
  const quads = parse(record.nquads, { format: 'application/n-quads' }).map(fromOxigraph);
  const g = iri(record.graphIri);
  const stale = record.stale;
  quads.push(quad(g, ph.isStale, literal(String(stale !== null), { datatype: XSD_BOOLEAN }), g));
  if (!stale) return quads;
  const invalidation = iris.answer(record.historyId, 'invalidation');
  const at = literal(stale.at, { datatype: XSD_DATE_TIME });
  quads.push(
    quad(g, prov.wasInvalidatedBy, invalidation, g),
    quad(g, prov.invalidatedAtTime, at, g),
    quad(invalidation, RDF_TYPE, iri(prov.Activity), g),
    quad(invalidation, ph.hasStaleReason, literal(stale.reason), g),
    quad(invalidation, prov.used, iris.document(stale.documentId), g),
    quad(invalidation, prov.endedAtTime, at, g),
  );
  return quads;
}

import type { ChunkRecord, DocumentRecord, EntityRecord, TripleRecord } from '../types.js';
import { type RdfQuad, type KbIris, integer, iri, literal, quad } from './terms.js';
import { RDF_TYPE, RDFS_LABEL, ph } from './vocabulary.js';

/**
 * The quads of each record per resources/ontology.ttl. Facts shared by several records (relationship
 * nodes, document↔entity links, relatesSource/Target) are emitted once per instance, so a stream of
 * all records has no duplicate statement and an export's count matches any parser's.
 */
export class KbQuads {
  readonly iris: KbIris;
  readonly #seen = new Set<string>();

  constructor(iris: KbIris) {
    this.iris = iris;
  }

  document(doc: DocumentRecord): RdfQuad[] {
    const d = this.iris.document(doc.id);
    const out = [
      quad(d, RDF_TYPE, iri(ph.Document)),
      quad(d, ph.hasRecordId, integer(doc.id)),
      quad(d, ph.hasUri, literal(doc.path)),
      quad(d, ph.hasName, literal(doc.title)),
      quad(d, RDFS_LABEL, literal(doc.title)),
      quad(d, ph.hasMediaType, literal(doc.mime)),
      quad(d, ph.hasContentHash, literal(doc.hash)),
    ];
    if (doc.language) out.push(quad(d, ph.hasLanguage, literal(doc.language)));
    return out;
  }

  /** One document's chunks, linked in `ord` order with hasNext/hasPrevious. */
  chunks(documentId: number, chunks: readonly ChunkRecord[]): RdfQuad[] {
    const d = this.iris.document(documentId);
    const sorted = [...chunks].sort((a, b) => a.ord - b.ord);
    const out: RdfQuad[] = [];
    // Each chunk's statements stay together (readable Turtle); the document's links come last.
    sorted.forEach((chunk, i) => {
      const c = this.iris.chunk(chunk.id);
      out.push(
        quad(c, RDF_TYPE, iri(ph.Chunk)),
        quad(c, ph.hasRecordId, integer(chunk.id)),
        quad(c, ph.belongsToDocument, d),
        quad(c, ph.hasOrder, integer(chunk.ord)),
        quad(c, ph.hasContent, literal(chunk.text)),
        quad(c, ph.hasStartOffset, integer(chunk.startOffset)),
        quad(c, ph.hasEndOffset, integer(chunk.endOffset)),
      );
      if (chunk.englishText !== null && chunk.englishText !== chunk.text)
        out.push(quad(c, ph.hasEnglishContent, literal(chunk.englishText)));
      if (chunk.summary !== null) out.push(quad(c, ph.hasSummary, literal(chunk.summary)));
      if (chunk.language) out.push(quad(c, ph.hasLanguage, literal(chunk.language)));
      if (chunk.page !== null) out.push(quad(c, ph.hasPage, integer(chunk.page)));
      const previous = sorted[i - 1];
      const next = sorted[i + 1];
      if (previous) out.push(quad(c, ph.hasPrevious, this.iris.chunk(previous.id)));
      if (next) out.push(quad(c, ph.hasNext, this.iris.chunk(next.id)));
    });
    for (const chunk of sorted) out.push(quad(d, ph.hasChunk, this.iris.chunk(chunk.id)));
    return out;
  }

  entity(entity: EntityRecord): RdfQuad[] {
    const e = this.iris.entity(entity.name);
    const out = [
      quad(e, RDF_TYPE, iri(ph.Entity)),
      quad(e, ph.hasRecordId, integer(entity.id)),
      quad(e, ph.hasName, literal(entity.name)),
      quad(e, RDFS_LABEL, literal(entity.name)),
      quad(e, ph.hasEntityType, literal(entity.type)),
    ];
    if (entity.summary !== null) out.push(quad(e, ph.hasSummary, literal(entity.summary)));
    for (const alias of new Set(entity.aliases)) out.push(quad(e, ph.hasAlias, literal(alias)));
    return out;
  }

  /**
   * The reified Triple node, the direct edge `source --relation--> target`, the relationship node
   * (first time only) and the document links of its chunks. `chunkDocuments` maps chunk ids to
   * documents; provenance chunks missing from it (or rejected by `keepChunk`) are left out.
   */
  triple(
    t: TripleRecord,
    chunkDocuments: ReadonlyMap<number, number>,
    keepChunk: (chunkId: number) => boolean = () => true,
  ): RdfQuad[] {
    const node = this.iris.triple(t.sourceName, t.relation, t.targetName);
    const s = this.iris.entity(t.sourceName);
    const o = this.iris.entity(t.targetName);
    const r = this.iris.relation(t.relation);
    const out = [
      quad(node, RDF_TYPE, iri(ph.Triple)),
      quad(node, ph.hasRecordId, integer(t.id)),
      quad(node, ph.hasSource, s),
      quad(node, ph.hasRelationship, r),
      quad(node, ph.hasTarget, o),
      quad(s, r, o),
    ];
    if (t.description !== null) out.push(quad(node, ph.hasDescription, literal(t.description)));
    if (this.#first(`r\u0000${t.relation}`)) {
      out.push(
        quad(r, RDF_TYPE, iri(ph.Relationship)),
        quad(r, ph.hasName, literal(t.relation)),
        quad(r, RDFS_LABEL, literal(t.relation)),
      );
    }
    if (this.#first(`rs\u0000${t.relation}\u0000${t.sourceId}`)) out.push(quad(r, ph.relatesSource, s));
    if (this.#first(`rt\u0000${t.relation}\u0000${t.targetId}`)) out.push(quad(r, ph.relatesTarget, o));
    for (const chunkId of new Set(t.chunkIds)) {
      if (!keepChunk(chunkId)) continue;
      out.push(quad(node, ph.belongsToChunk, this.iris.chunk(chunkId)));
      const docId = chunkDocuments.get(chunkId);
      if (docId === undefined) continue;
      const d = this.iris.document(docId);
      for (const [entityId, e] of [
        [t.sourceId, s],
        [t.targetId, o],
      ] as const) {
        if (this.#first(`de\u0000${docId}\u0000${entityId}`))
          out.push(quad(d, ph.hasEntity, e), quad(e, ph.belongsToDocument, d));
      }
      if (this.#first(`dr\u0000${docId}\u0000${t.relation}`))
        out.push(quad(d, ph.hasRelationship, r), quad(r, ph.belongsToDocument, d));
    }
    return out;
  }

  #first(key: string): boolean {
    if (this.#seen.has(key)) return false;
    this.#seen.add(key);
    return true;
  }
}

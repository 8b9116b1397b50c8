/**
 * The knowledge base's records and the operations the indexing (mder/) and answering (qa/) layers
 * use. SQLite is the system of record; sqlite-vec, FTS5 and the Oxigraph RDF view are derived
 * from it and rebuildable.
 */

export type DocumentStatus = 'pending' | 'indexing' | 'indexed' | 'error';

export interface DocumentRecord {
  id: number;
  /** Absolute path (or `rdf:` / `dataset:` URI for non-file sources). */
  path: string;
  title: string;
  /** sha256 of the file bytes; unchanged files are skipped on re-scan. */
  hash: string;
  mime: string;
  size: number;
  language: string | null;
  status: DocumentStatus;
  /** Why the document could not be (fully) indexed, naming the stage. */
  error: string | null;
  chunkCount: number;
  tripleCount: number;
  addedAt: string;
}

export interface NewChunk {
  ord: number;
  text: string;
  language: string | null;
  /** Character offsets into the document's extracted text. */
  startOffset: number;
  endOffset: number;
  /** 1-based PDF page where the chunk starts, when known. */
  page: number | null;
}

export interface ChunkRecord extends NewChunk {
  id: number;
  documentId: number;
  /** Windowed summary (MDER preprocessing). */
  summary: string | null;
  /** English text that feeds extraction; equals the summary for English chunks. */
  englishText: string | null;
}

export interface EntityRecord {
  id: number;
  name: string;
  type: string;
  summary: string | null;
  /** True when the entity's triples changed since its summary was written (needs Reduce). */
  summaryStale: boolean;
  /** Names merged into this entity by Disambiguate. */
  aliases: string[];
}

export interface TripleRecord {
  id: number;
  sourceId: number;
  sourceName: string;
  relation: string;
  targetId: number;
  targetName: string;
  description: string | null;
  /** Chunks the triple was extracted from (provenance); empty for imported RDF. */
  chunkIds: number[];
}

/** Vector families kept in sqlite-vec, each keyed by the id of the row it embeds. */
export type VectorKind = 'chunk' | 'entity_name' | 'entity_summary' | 'triple';

/** Texts indexed in FTS5 for BM25. */
export type TextIndexKind = 'chunk' | 'triple';

export interface ScoredId {
  id: number;
  /** Cosine similarity for KNN, negated bm25 for FTS (higher is better either way). */
  score: number;
}

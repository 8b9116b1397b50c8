/**
 * The knowledge base's records and the operations the indexing (mder/) and answering (qa/) layers
 * use. SQLite is the system of record; sqlite-vec, FTS5 and the Oxigraph RDF view are derived
 * from it and rebuildable.
 */
import type { AnswerStaleness } from './AnswerGraphRepository.js';

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
  /**
   * The document of the file this one is a part of (an MBOX's message, an e-mail's attachment),
   * whose path is this one's up to `#`; null for a file's own document. Parts are added, moved and
   * removed with their container.
   */
  containerId: number | null;
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

/** A partial summary Reduce wrote for a hub entity: facts `firstFact`–`lastFact` (1-based) of its `factCount`. */
export interface NewPartialSummary {
  text: string;
  firstFact: number;
  lastFact: number;
  factCount: number;
  /** The triples of facts `firstFact`–`lastFact`, whose chunks the partial cites. Default: unknown (it cites the entity's chunks). */
  tripleIds?: readonly number[];
}

export interface PartialSummaryRecord extends Omit<NewPartialSummary, 'tripleIds'> {
  /** The triples it summarises; null for a partial written before they were kept (migration 0013). */
  tripleIds: number[] | null;
  id: number;
  entityId: number;
  /** Position among the entity's partial summaries, from 0 (fact order). */
  ord: number;
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

/**
 * A fixed-size window of a document's text (the vector-RAG baseline's unit: 1,000 tokens with 200
 * of overlap by default), cut at index time next to the semantic chunks. Not used by MDER.
 */
export interface PassageRecord {
  id: number;
  documentId: number;
  ord: number;
  text: string;
  /** Character offsets into the document's extracted text. */
  startOffset: number;
  endOffset: number;
  /** 1-based PDF page where the passage starts, when known. */
  page: number | null;
  /** The document's semantic chunks that overlap the passage, in text order (for citations). */
  chunkIds: number[];
}

/**
 * Vector families kept in sqlite-vec, each keyed by the id of the row it embeds. `chunk` is a
 * chunk's English text (every chunk); `chunk_original` its text as written, for non-English chunks
 * only (an English chunk's `chunk` vector stands for it in both: see chunkCorpora.ts).
 * `entity_partial` is a hub entity's partial summary (PartialSummaryRepository.ts).
 */
export type VectorKind =
  'chunk' | 'chunk_original' | 'entity_name' | 'entity_summary' | 'entity_partial' | 'triple' | 'passage';

/** Texts indexed in FTS5 for BM25: `chunk` is the English text of every chunk, `chunk_original` every chunk's text as written. */
export type TextIndexKind = 'chunk' | 'chunk_original' | 'triple';

export interface ScoredId {
  id: number;
  /** Cosine similarity for KNN, negated bm25 for FTS (higher is better either way). */
  score: number;
}

/** What the caller knows about a document before it is indexed. */
export interface NewDocument {
  path: string;
  title: string;
  hash: string;
  mime: string;
  size: number;
  /** Default: null (detected later). */
  language?: string | null;
  /** Default: 'pending'. */
  status?: DocumentStatus;
  /** The container document of a part (see {@link DocumentRecord.containerId}). Default: null. */
  containerId?: number | null;
}

/** Fields of a document that change when its file changes or its language is detected. */
export interface DocumentUpdate {
  /** A new path: the same file moved or renamed (its content hash unchanged). */
  path?: string;
  title?: string;
  hash?: string;
  mime?: string;
  size?: number;
  language?: string | null;
}

export type DocumentSortKey =
  'title' | 'mime' | 'language' | 'size' | 'chunkCount' | 'tripleCount' | 'status' | 'addedAt';

export interface ListDocumentsOptions {
  /** Default: 0. */
  offset?: number;
  /** Default: 200. */
  limit?: number;
  /** Default: 'addedAt'. */
  sort?: DocumentSortKey;
  /** Default: false. */
  descending?: boolean;
  /** Case-insensitive substring of the title or path; default '' (all). */
  filter?: string;
  /**
   * Parts of a file (a mail's messages and attachments) listed under it, not beside it: only
   * documents that are no part, one counted when it or one of its parts matches the filter.
   * Default: false (every document).
   */
  grouped?: boolean;
  /** Only the parts of this document (its file's messages and attachments). */
  containerId?: number;
}

export interface DocumentList {
  /** Rows matching the filter, before offset/limit. */
  total: number;
  /** Each with the number of parts it holds. */
  rows: (DocumentRecord & { partCount: number })[];
}

/** What {@link DocumentRepository.deleteDocument} (and chunk replacement) removed and touched. */
export interface RemovalResult {
  /** Surviving entities whose triples changed: now `summaryStale`, to be re-reduced. */
  touchedEntityIds: number[];
  /** Entities deleted because no triple referred to them any more. */
  removedEntityIds: number[];
  /** Triples deleted because all their provenance was in the removed chunks. */
  removedTripleIds: number[];
  removedChunkIds: number[];
}

export interface ChunkUpdate {
  summary?: string | null;
  englishText?: string | null;
}

export interface ChunkNeighbours {
  previous: ChunkRecord | null;
  next: ChunkRecord | null;
}

export interface NewTriple {
  sourceId: number;
  relation: string;
  targetId: number;
  /** The chunk the triple was read from; null for imported RDF (no provenance). */
  chunkId: number | null;
}

export type TripleDirection = 'out' | 'in' | 'both';

/** The embedding model a KB's vectors come from; vectors of another model are refused. */
export interface EmbedderRecord {
  identity: string;
  dimension: number;
}

export interface KbMeta {
  name: string;
  description: string;
  /** Absolute IRI ending in '/' or '#', under which the RDF view mints its IRIs. */
  baseIri: string;
  createdAt: string;
  schemaVersion: number;
  embedder: EmbedderRecord | null;
}

/** A value with how many rows carry it (entity types, relations). */
export interface NamedCount {
  name: string;
  count: number;
}

export interface KbStats {
  documents: number;
  chunks: number;
  entities: number;
  triples: number;
  relations: number;
  vectors: Record<VectorKind, number>;
  /** Database file plus its WAL. */
  sizeBytes: number;
}

export interface CallCacheStats {
  entries: number;
  hits: number;
  promptTokens: number;
  completionTokens: number;
  /** Per prompt name: entries and hits. */
  byPrompt: { promptName: string; entries: number; hits: number }[];
}

export interface HistoryRecord {
  id: number;
  question: string;
  strategy: string;
  /** The answer as the caller stored it (JSON text). */
  answerJson: string;
  askedAt: string;
  /** Set once a document the answer cites was re-indexed or removed. */
  stale: AnswerStaleness | null;
}

/** Spread of one kind of similarity over pairs of unrelated texts. */
export interface SimilarityDistribution {
  /** Pairs measured. */
  pairs: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/**
 * Similarity thresholds fitted to the KB's embedder (recorded with the KB; valid for the
 * embedder named here only). See mder/calibration.
 */
export interface SimilarityCalibration {
  /** Identity of the embedder the similarities were measured with. */
  embedder: string;
  /** ISO time of the calibration. */
  calibratedAt: string;
  /** Entities in the KB when it was calibrated (it is redone when they have doubled). */
  entityCount: number;
  /** The percentile of unrelated pairs a threshold sits at (e.g. 0.99). */
  percentile: number;
  /** Entity names (KB names × reference names). */
  names: SimilarityDistribution;
  /** Short sentences as queries (KB sentences × reference questions). */
  sentences: SimilarityDistribution;
  /** Name cosine from which Disambiguate asks the LLM about a pair (paper: 0.95). */
  mergeThreshold: number;
  /** The percentile of unrelated name pairs `mergeThreshold` sits at (rises with the KB's size). */
  mergePercentile: number;
  /** Sub-question cosine from which DaPT fuses two nodes (paper: τ = 0.8). */
  fusionThreshold: number;
  /**
   * What τ was fitted on: reference sub-questions and their translations, against pairs of
   * different questions about the same topic; `separated` when the embedder puts the first above
   * the second (absent in calibrations made before).
   */
  fusion?: { translations: SimilarityDistribution; sameTopic: SimilarityDistribution; separated: boolean };
}

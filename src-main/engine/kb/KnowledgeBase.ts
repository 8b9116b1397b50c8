import type { CallCacheStore } from '../models/CallCache.js';
import type {
  CallCacheStats,
  ChunkNeighbours,
  ChunkRecord,
  ChunkUpdate,
  DocumentList,
  DocumentRecord,
  DocumentStatus,
  DocumentUpdate,
  EmbedderRecord,
  EntityRecord,
  HistoryRecord,
  KbMeta,
  KbStats,
  ListDocumentsOptions,
  NamedCount,
  NewChunk,
  NewDocument,
  NewTriple,
  RemovalResult,
  ScoredId,
  TextIndexKind,
  TripleDirection,
  TripleRecord,
  VectorKind,
} from './types.js';

export interface KnowledgeBaseOptions {
  /** Create the file with this meta when it does not exist. Default: undefined (a missing file is NOT_FOUND). */
  create?: { name: string; description?: string; baseIri: string };
  /** Open read-only (no migrations, no writes). Default: false. */
  readonly?: boolean;
  /** How long a statement waits for another connection's write lock, in ms. Default: 5000. */
  busyTimeoutMs?: number;
}

export interface KnnOptions {
  /** Full float scan instead of the binary prefilter + float rerank (ground truth for benchmarks). Default: false. */
  exact?: boolean;
  /** Candidates taken from the binary prefilter per wanted result, before the float rerank. Default: 40. */
  oversample?: number;
}

export interface ListEntitiesOptions {
  /** Only entities whose summary is (true) or is not (false) stale. Default: undefined (all). */
  stale?: boolean;
  /** Only entities of this type. Default: undefined (all). */
  type?: string;
  /** Default: 0. */
  offset?: number;
  /** Default: 1000. */
  limit?: number;
}

export interface IterateOptions {
  /** Only rows belonging to this document (chunks, or triples with provenance in its chunks). Default: all. */
  documentId?: number;
  /** Rows fetched per round trip. Default: 1000. */
  batchSize?: number;
}

/**
 * One knowledge base: a SQLite file (WAL) that is the system of record for documents, chunks,
 * entities and triples, with sqlite-vec tables for their vectors and FTS5 tables for BM25. The RDF
 * view (kb/rdf) is derived from it through the `iterate*` generators.
 *
 * Every mutating method runs in one transaction; {@link transaction} groups several.
 * Construct with {@link KnowledgeBase.open}.
 */
export class KnowledgeBase {
  private constructor() {}

  /**
   * Opens (or, with `options.create`, creates) the KB at `file`, applying pending migrations.
   * Throws NOT_FOUND when missing and not asked to create, UNSUPPORTED when the file was written by
   * a newer schema than this build knows, BAD_INPUT when it is not a Polyhop KB.
   */
  static open(file: string, options: KnowledgeBaseOptions = {}): KnowledgeBase {
    throw notYet(file, options);
  }

  /** Meta of the KB at `file` without migrating it (works for newer schemas too). */
  static readMeta(file: string): KbMeta {
    throw notYet(file);
  }

  readonly file!: string;
  get closed(): boolean {
    throw notYet();
  }
  close(): void {}

  /** Runs `fn` in one transaction (nested calls become savepoints); all or nothing. */
  transaction<T>(fn: () => T): T {
    return fn();
  }

  // ── meta ────────────────────────────────────────────────────────────────────

  meta(): KbMeta {
    throw notYet();
  }
  /** Renames or re-describes the KB (the base IRI is fixed at creation). */
  setMeta(update: { name?: string; description?: string }): void {
    throw notYet(update);
  }
  embedder(): EmbedderRecord | null {
    throw notYet();
  }
  /**
   * Records the embedder whose vectors this KB holds. When it differs from the recorded one, every
   * stored vector is dropped (they are not comparable) and the vector tables are rebuilt at the new
   * dimension: this is how a KB is re-embedded.
   */
  setEmbedder(identity: string, dimension: number): void {
    throw notYet(identity, dimension);
  }
  /**
   * Sets the embedder when none is recorded; throws CONFLICT (offering re-embedding) when another
   * identity or dimension is recorded.
   */
  assertEmbedder(identity: string, dimension: number): void {
    throw notYet(identity, dimension);
  }
  getSetting<T = unknown>(key: string): T | undefined {
    throw notYet(key);
  }
  setSetting(key: string, value: unknown): void {
    throw notYet(key, value);
  }

  // ── documents ───────────────────────────────────────────────────────────────

  /** Throws ALREADY_EXISTS when a document has the same path. */
  addDocument(doc: NewDocument): DocumentRecord {
    throw notYet(doc);
  }
  getDocument(id: number): DocumentRecord | undefined {
    throw notYet(id);
  }
  findDocumentByPath(path: string): DocumentRecord | undefined {
    throw notYet(path);
  }
  listDocuments(options: ListDocumentsOptions = {}): DocumentList {
    throw notYet(options);
  }
  setDocumentStatus(id: number, status: DocumentStatus, error: string | null = null): void {
    throw notYet(id, status, error);
  }
  updateDocument(id: number, update: DocumentUpdate): DocumentRecord {
    throw notYet(id, update);
  }
  /**
   * Removes the document and everything that exists only because of it: chunks and their vectors
   * and FTS rows, triples whose only provenance was its chunks (with theirs), entities left without
   * triples (with theirs). Shared entities are marked `summaryStale`. NOT_FOUND when missing.
   */
  deleteDocument(id: number): RemovalResult {
    throw notYet(id);
  }

  // ── chunks ──────────────────────────────────────────────────────────────────

  /** Replaces all chunks of a document; what hung off the old ones goes as in {@link deleteDocument}. */
  replaceChunks(documentId: number, chunks: readonly NewChunk[]): ChunkRecord[] {
    throw notYet(documentId, chunks);
  }
  getChunk(id: number): ChunkRecord | undefined {
    throw notYet(id);
  }
  /** Chunks in the order of `ids`; unknown ids are skipped. */
  getChunks(ids: readonly number[]): ChunkRecord[] {
    throw notYet(ids);
  }
  chunksOfDocument(documentId: number): ChunkRecord[] {
    throw notYet(documentId);
  }
  updateChunk(id: number, update: ChunkUpdate): void {
    throw notYet(id, update);
  }
  /** The chunks just before and after `chunkId` in its document (MDER's ±1 context). */
  neighbours(chunkId: number): ChunkNeighbours {
    throw notYet(chunkId);
  }

  // ── entities ────────────────────────────────────────────────────────────────

  /**
   * The id of the entity named `name` (or aliased so by a merge), created with `type` if none.
   * Names match exactly on their key: NFKC, case-folded, whitespace trimmed and collapsed.
   */
  upsertEntity(name: string, type: string): number {
    throw notYet(name, type);
  }
  getEntity(id: number): EntityRecord | undefined {
    throw notYet(id);
  }
  /** Entities in the order of `ids`; unknown ids are skipped. */
  getEntities(ids: readonly number[]): EntityRecord[] {
    throw notYet(ids);
  }
  /** By name or alias, on the same key as {@link upsertEntity}. */
  findEntityByName(name: string): EntityRecord | undefined {
    throw notYet(name);
  }
  listEntities(options: ListEntitiesOptions = {}): EntityRecord[] {
    throw notYet(options);
  }
  countEntities(options: { stale?: boolean } = {}): number {
    throw notYet(options);
  }
  /**
   * Merges `ids` into one entity named `canonicalName` and returns its id. The other names become
   * aliases, triples are re-pointed (duplicates merged with their provenance), merged entities and
   * their vectors are deleted, the kept one is marked stale. CONFLICT when `canonicalName` belongs
   * to an entity outside `ids`.
   */
  mergeEntities(canonicalName: string, ids: readonly number[]): number {
    throw notYet(canonicalName, ids);
  }
  /** Stores a (re-)reduced summary, clears `summaryStale`, drops the outdated summary vector. */
  setEntitySummary(id: number, summary: string): void {
    throw notYet(id, summary);
  }
  /** Full-text (prefix) search over names, aliases and summaries; empty query lists by name. */
  searchEntities(query: string, type?: string, limit = 50): EntityRecord[] {
    throw notYet(query, type, limit);
  }
  entityTypes(): NamedCount[] {
    throw notYet();
  }

  // ── triples ─────────────────────────────────────────────────────────────────

  /** Adds the triple (or finds it: unique on source, relation, target) and records `chunkId` as provenance. */
  addTriple(triple: NewTriple): number {
    throw notYet(triple);
  }
  setTripleDescription(id: number, description: string): void {
    throw notYet(id, description);
  }
  getTriples(ids: readonly number[]): TripleRecord[] {
    throw notYet(ids);
  }
  triplesOfEntity(entityId: number, direction: TripleDirection = 'both', limit = 10_000): TripleRecord[] {
    throw notYet(entityId, direction, limit);
  }
  /** Triples with provenance in any of the chunks. */
  triplesOfChunks(chunkIds: readonly number[]): TripleRecord[] {
    throw notYet(chunkIds);
  }
  countTriples(): number {
    throw notYet();
  }
  relations(): NamedCount[] {
    throw notYet();
  }

  // ── vectors (sqlite-vec) ────────────────────────────────────────────────────

  /**
   * Stores (replaces) vectors of `kind`. Needs a recorded embedder; each vector must have its
   * dimension (CONFLICT otherwise) and belong to an existing row (NOT_FOUND otherwise).
   * Vectors are L2-normalised on the way in.
   */
  putVectors(kind: VectorKind, items: readonly { id: number; vector: Float32Array }[]): void {
    throw notYet(kind, items);
  }
  deleteVectors(kind: VectorKind, ids: readonly number[]): void {
    throw notYet(kind, ids);
  }
  /** The `k` nearest rows by cosine similarity (score = cosine, higher is better). */
  knn(kind: VectorKind, query: Float32Array, k: number, options: KnnOptions = {}): ScoredId[] {
    throw notYet(kind, query, k, options);
  }
  /** Ids of `kind` rows that have no vector yet (what an embedding stage still has to do). */
  missingVectors(kind: VectorKind, limit = 1000): number[] {
    throw notYet(kind, limit);
  }

  // ── full text (FTS5, BM25) ──────────────────────────────────────────────────

  /** Indexes (replaces) texts; they are word-segmented first so zh/ja/th work like spaced languages. */
  indexText(kind: TextIndexKind, items: readonly { id: number; text: string }[]): void {
    throw notYet(kind, items);
  }
  removeText(kind: TextIndexKind, ids: readonly number[]): void {
    throw notYet(kind, ids);
  }
  /** BM25 over any of the query's words (score = -bm25, higher is better). The query is data: FTS5 syntax in it is inert. */
  bm25(kind: TextIndexKind, query: string, k: number): ScoredId[] {
    throw notYet(kind, query, k);
  }

  // ── checkpoints, LLM-call cache, QA history ─────────────────────────────────

  getCheckpoint<T = unknown>(key: string): T | undefined {
    throw notYet(key);
  }
  setCheckpoint(key: string, value: unknown): void {
    throw notYet(key, value);
  }
  /** Deletes every checkpoint whose key starts with `prefix`. */
  clearCheckpoints(prefix: string): void {
    throw notYet(prefix);
  }
  /** The LLM-call cache kept in this KB (models/CallCache.ts uses it). */
  get callCache(): CallCacheStore {
    throw notYet();
  }
  cacheStats(): CallCacheStats {
    throw notYet();
  }
  addHistory(question: string, strategy: string, answerJson: string): number {
    throw notYet(question, strategy, answerJson);
  }
  /** Newest first; `search` is a case-insensitive substring of the question ('' for all). */
  listHistory(search = '', limit = 100): HistoryRecord[] {
    throw notYet(search, limit);
  }

  // ── streaming (RDF view, export) and stats ──────────────────────────────────

  iterateDocuments(options: Omit<IterateOptions, 'documentId'> = {}): Generator<DocumentRecord> {
    throw notYet(options);
  }
  iterateChunks(options: IterateOptions = {}): Generator<ChunkRecord> {
    throw notYet(options);
  }
  iterateEntities(options: Omit<IterateOptions, 'documentId'> = {}): Generator<EntityRecord> {
    throw notYet(options);
  }
  iterateTriples(options: IterateOptions = {}): Generator<TripleRecord> {
    throw notYet(options);
  }
  stats(): KbStats {
    throw notYet();
  }
}

function notYet(..._args: unknown[]): Error {
  return new Error('KnowledgeBase: not implemented yet');
}

// Over 500 lines for now: about 300 of them are one-line delegations that keep the public methods
// callers use (kb.getEntity, kb.knn, ...); documents, chunks and passages still live here, and are
// the next repository to move out (their removals cross the graph, vector and text repositories).
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database as Db, Statement } from 'better-sqlite3';
import { StatementCache } from './utils/StatementCache.js';
import { PolyhopError } from '../base/errors.js';
import type { CallCacheStore } from '../models/CallCache.js';
import { LATEST_SCHEMA_VERSION, assertSupportedVersion, migrate, schemaVersion } from './migrations/migrate.js';
import { HistoryRepository } from './HistoryRepository.js';
import { ImportedStatementsRepository } from './ImportedStatementsRepository.js';
import { JobStateRepository } from './JobStateRepository.js';
import { TextIndexRepository } from './TextIndexRepository.js';
import { GraphRepository } from './GraphRepository.js';
import type { ImportedRecords, ListEntitiesOptions } from './GraphRepository.js';
import { MetaRepository } from './MetaRepository.js';
import type { IterateOptions } from './utils/rows.js';
import { VectorIndexRepository } from './VectorIndexRepository.js';
import type { KnnOptions } from './VectorIndexRepository.js';
import type { RepositoryContext } from './RepositoryContext.js';
import { backupKb, openDatabase, notAKb, readKbMeta, verifyKbFile } from './KbFile.js';
import { StoreJournal } from './store/StoreJournal.js';
import { checkBaseIri } from './utils/baseIri.js';
import type {
  CallCacheStats,
  ChunkNeighbours,
  ChunkRecord,
  ChunkUpdate,
  DocumentList,
  DocumentRecord,
  DocumentSortKey,
  DocumentStatus,
  DocumentUpdate,
  EmbedderRecord,
  EntityRecord,
  SimilarityCalibration,
  HistoryRecord,
  KbMeta,
  KbStats,
  ListDocumentsOptions,
  NamedCount,
  NewChunk,
  NewDocument,
  NewTriple,
  PassageRecord,
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
  /** Open read-only (no migrations, no writes; the file must be at the current schema). Default: false. */
  readonly?: boolean;
  /** How long a statement waits for another connection's write lock, in ms. Default: 5000. */
  busyTimeoutMs?: number;
}

export type { KnnOptions } from './VectorIndexRepository.js';
export type { ImportedRecords, ListEntitiesOptions } from './GraphRepository.js';
export type { IterateOptions } from './utils/rows.js';

const DOCUMENT_SORT: Record<DocumentSortKey, string> = {
  title: 'title COLLATE NOCASE',
  mime: 'mime',
  language: 'language',
  size: 'size',
  chunkCount: 'chunk_count',
  tripleCount: 'triple_count',
  status: 'status',
  addedAt: 'added_at',
};

const DOCUMENT_COLUMNS = `id, path, title, hash, mime, size, language, status, error,
  chunk_count AS chunkCount, triple_count AS tripleCount, added_at AS addedAt`;
const CHUNK_COLUMNS = `id, document_id AS documentId, ord, text, language, start_offset AS startOffset,
  end_offset AS endOffset, page, summary, english_text AS englishText`;
const PASSAGE_COLUMNS = `p.id, p.document_id AS documentId, p.ord, p.text, p.start_offset AS startOffset, p.end_offset AS endOffset, p.page,
  (SELECT json_group_array(c.id) FROM (SELECT id FROM chunks WHERE document_id = p.document_id AND start_offset < p.end_offset
     AND end_offset > p.start_offset ORDER BY ord) c) AS chunkIds`;
type PassageRow = Omit<PassageRecord, 'chunkIds'> & { chunkIds: string };

/**
 * One knowledge base: a SQLite file (WAL) that is the system of record for documents, chunks,
 * entities and triples, with their vectors (float blobs, searched through an in-memory sign-bit
 * index then reranked with sqlite-vec's cosine) and FTS5 tables for BM25. The RDF view (kb/rdf) is
 * derived from it through the `iterate*` generators.
 *
 * Every mutating method runs in one transaction; {@link transaction} groups several. Methods are
 * synchronous (better-sqlite3): run long batches off the UI thread.
 */
export class KnowledgeBase {
  readonly file: string;
  readonly #db: Db;
  readonly #statements: StatementCache;
  /**
   * Bumped by every write of this connection to chunks, passages, entities, triples or text indexes
   * (and on any rollback); with SQLite's data_version (other connections' commits) it keys
   * {@link #derived}.
   */
  #contentGeneration = 0;
  /** Aggregates that are costly at scale (GROUP BY over a million rows), until the content changes. */
  #derived: { key: string; values: Map<string, unknown> } | undefined;
  /** fts5vocab tables created on this connection (they live in its temp schema). */
  /** Checkpoints and the LLM-call cache (JobStateRepository.ts). */
  readonly jobState: JobStateRepository;
  /** Questions asked and their answers (HistoryRepository.ts). */
  readonly history: HistoryRepository;
  /** FTS5 indexes and BM25 (TextIndexRepository.ts). */
  readonly textIndex: TextIndexRepository;
  /** An imported graph's original N-Quads (ImportedStatementsRepository.ts). */
  readonly importedStatements: ImportedStatementsRepository;
  /** Entities, aliases, merges and triples (GraphRepository.ts). */
  readonly graph: GraphRepository;
  /** Meta and settings (MetaRepository.ts). */
  readonly metadata: MetaRepository;
  /** The embedder record, vectors and the sign-bit index (VectorIndexRepository.ts). */
  readonly vectors: VectorIndexRepository;
  #storeJournal: StoreJournal | undefined;

  private constructor(file: string, db: Db) {
    this.file = file;
    this.#db = db;
    this.#statements = new StatementCache(db);
    const context: RepositoryContext = {
      file,
      db,
      statements: this.#statements,
      transaction: (fn) => this.transaction(fn),
      touch: () => {
        this.#contentGeneration++;
      },
      derive: (name, compute) => this.#derive(name, compute),
      exists: (table, id) => this.#exists(table, id),
      notFound: (what, id) => this.#notFound(what, id),
      name: () => this.meta().name,
    };
    this.metadata = new MetaRepository(context);
    this.vectors = new VectorIndexRepository(context, this.metadata);
    this.jobState = new JobStateRepository(db, this.#statements);
    this.history = new HistoryRepository(this.#statements);
    this.textIndex = new TextIndexRepository(context);
    this.importedStatements = new ImportedStatementsRepository(this.#statements);
    this.graph = new GraphRepository(context, this.vectors, this.textIndex);
  }

  /**
   * Opens (or, with `options.create`, creates) the KB at `file`, applying pending migrations.
   * Throws NOT_FOUND when missing and not asked to create, UNSUPPORTED when the file was written by
   * a newer schema than this build knows, BAD_INPUT when it is not a Polyhop KB.
   */
  static open(file: string, options: KnowledgeBaseOptions = {}): KnowledgeBase {
    const existed = existsSync(file);
    const readonly = options.readonly ?? false;
    if (!existed && (!options.create || readonly)) {
      throw new PolyhopError('NOT_FOUND', `${file}: no knowledge base file here`, { details: { file } });
    }
    if (options.create) checkBaseIri(options.create.baseIri);
    if (!existed) mkdirSync(dirname(file), { recursive: true });
    const db = openDatabase(file, readonly, options.busyTimeoutMs ?? 5000);
    try {
      const version = schemaVersion(db);
      const tables = db
        .prepare("SELECT COUNT(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'")
        .pluck()
        .get() as number;
      if (version === 0 && tables > 0) throw notAKb(file, 'it has tables but no Polyhop schema');
      if (readonly) {
        assertSupportedVersion(version, file);
        if (version !== LATEST_SCHEMA_VERSION) {
          throw new PolyhopError(
            'UNSUPPORTED',
            `${file}: schema v${version} needs upgrading; open it writable once first`,
            { details: { file } },
          );
        }
      } else {
        migrate(db, file);
      }
      const kb = new KnowledgeBase(file, db);
      kb.metadata.initialise(version, options.create);
      return kb;
    } catch (error) {
      db.close();
      if (!existed) for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
      throw error;
    }
  }

  /** Meta of the KB at `file` without migrating it (works for newer schemas too). */
  static readMeta(file: string): KbMeta {
    return readKbMeta(file);
  }

  get closed(): boolean {
    return !this.#db.open;
  }

  /** Writes a consistent, integrity-checked copy of the KB to `file` (see {@link backupKb}). */
  async backup(file: string, onProgress?: (done: number, total: number) => void): Promise<void> {
    await backupKb(this.#db, file, onProgress);
  }

  /** Checks that `file` is an intact Polyhop KB this version can read (BAD_INPUT / UNSUPPORTED otherwise). */
  static verifyFile(file: string): KbMeta {
    return verifyKbFile(file);
  }

  /**
   * Caps the file at `pages` pages for this connection (SQLite `max_page_count`, never below the
   * current size); writes past the cap fail with SQLITE_FULL exactly as on a full disk. A test
   * hook for disk-full handling; `null` lifts the cap. Returns the cap in force.
   */
  capPages(pages: number | null): number {
    const cap = pages === null ? 0xfffffffe : Math.max(1, Math.floor(pages));
    return this.#db.pragma(`max_page_count = ${cap}`, { simple: true }) as number;
  }

  close(): void {
    if (!this.#db.open) return;
    try {
      if (!this.#db.readonly) this.#db.pragma('optimize');
    } catch {
      // Only a statistics refresh: on a full disk it cannot be written, and the file must still be released.
    }
    this.#db.close();
    this.#statements.clear();
    this.vectors.forgetLoaded();
    this.#derived = undefined;
    this.textIndex.clear();
  }

  /**
   * Runs `fn` in one transaction (nested calls become savepoints); all or nothing. `fn` must be
   * synchronous. On a rollback the in-memory vector indexes are dropped and reload on next use.
   */
  transaction<T>(fn: () => T): T {
    try {
      return this.#db.transaction(fn)();
    } catch (error) {
      this.vectors.forgetLoaded();
      this.#contentGeneration++;
      throw error;
    }
  }

  // ── meta ────────────────────────────────────────────────────────────────────

  meta(): KbMeta {
    return this.metadata.meta();
  }

  setMeta(update: { name?: string; description?: string }): void {
    this.metadata.setMeta(update);
  }

  embedder(): EmbedderRecord | null {
    return this.vectors.embedder();
  }

  /** Records the embedder; another one drops every stored vector (see {@link VectorIndexRepository.setEmbedder}). */
  setEmbedder(identity: string, dimension: number): void {
    this.vectors.setEmbedder(identity, dimension);
  }

  similarityCalibration(): SimilarityCalibration | null {
    return this.vectors.similarityCalibration();
  }

  setSimilarityCalibration(calibration: SimilarityCalibration): void {
    this.vectors.setSimilarityCalibration(calibration);
  }

  /** Sets the embedder when none is recorded; CONFLICT (offering re-embedding) when another one is. */
  assertEmbedder(identity: string, dimension: number): void {
    this.vectors.assertEmbedder(identity, dimension);
  }

  getSetting<T = unknown>(key: string): T | undefined {
    return this.metadata.getSetting<T>(key);
  }

  /** Stores a JSON-serialisable value; `undefined` deletes the setting. */
  setSetting(key: string, value: unknown): void {
    this.metadata.setSetting(key, value);
  }

  // ── documents ───────────────────────────────────────────────────────────────

  /** Throws ALREADY_EXISTS when a document has the same path. */
  addDocument(doc: NewDocument): DocumentRecord {
    if (this.findDocumentByPath(doc.path)) {
      throw new PolyhopError('ALREADY_EXISTS', `${doc.path} is already in knowledge base "${this.meta().name}"`, {
        details: { path: doc.path },
      });
    }
    const id = this.#stmt(
      `INSERT INTO documents (path, title, hash, mime, size, language, status, added_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    )
      .pluck()
      .get(
        doc.path,
        doc.title,
        doc.hash,
        doc.mime,
        doc.size,
        doc.language ?? null,
        doc.status ?? 'pending',
        new Date().toISOString(),
      ) as number;
    return this.#requireDocument(id);
  }

  getDocument(id: number): DocumentRecord | undefined {
    return this.#stmt(`SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE id = ?`).get(id) as DocumentRecord | undefined;
  }

  findDocumentByPath(path: string): DocumentRecord | undefined {
    return this.#stmt(`SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE path = ?`).get(path) as
      DocumentRecord | undefined;
  }

  /** One page of documents; `filter` matches title or path (case-insensitive for ASCII letters). */
  listDocuments(options: ListDocumentsOptions = {}): DocumentList {
    const { offset = 0, limit = 200, sort = 'addedAt', descending = false, filter = '' } = options;
    const order = DOCUMENT_SORT[sort];
    if (!order) throw new PolyhopError('BAD_INPUT', `Cannot sort documents by "${String(sort)}"`);
    const direction = descending ? 'DESC' : 'ASC';
    const where = filter ? `WHERE title LIKE :pattern ESCAPE '\\' OR path LIKE :pattern ESCAPE '\\'` : '';
    const params = filter ? { pattern: `%${filter.replace(/[\\%_]/g, (c) => `\\${c}`)}%` } : {};
    const total = this.#stmt(`SELECT COUNT(*) FROM documents ${where}`).pluck().get(params) as number;
    const rows = this.#stmt(
      `SELECT ${DOCUMENT_COLUMNS} FROM documents ${where} ORDER BY ${order} ${direction}, id ${direction} LIMIT :limit OFFSET :offset`,
    ).all({
      ...params,
      limit,
      offset,
    }) as DocumentRecord[];
    return { total, rows };
  }

  setDocumentStatus(id: number, status: DocumentStatus, error: string | null = null): void {
    const changes = this.#stmt('UPDATE documents SET status = ?, error = ? WHERE id = ?').run(
      status,
      error,
      id,
    ).changes;
    if (changes === 0) throw this.#notFound('document', id);
  }

  updateDocument(id: number, update: DocumentUpdate): DocumentRecord {
    const current = this.#requireDocument(id);
    const next = { ...current, ...update };
    this.#stmt('UPDATE documents SET path = ?, title = ?, hash = ?, mime = ?, size = ?, language = ? WHERE id = ?').run(
      next.path,
      next.title,
      next.hash,
      next.mime,
      next.size,
      next.language,
      id,
    );
    return this.#requireDocument(id);
  }

  /**
   * Removes the document and everything that exists only because of it: chunks and passages and
   * their vectors and FTS rows, triples whose only provenance was its chunks (with theirs), entities
   * left without triples (with theirs). Shared entities are marked `summaryStale`. NOT_FOUND when missing.
   */
  deleteDocument(id: number): RemovalResult {
    return this.transaction(() => {
      this.#requireDocument(id);
      this.#removePassages(id);
      const result = this.#removeChunks(this.#chunkIdsOf(id));
      this.#stmt('DELETE FROM documents WHERE id = ?').run(id);
      return result;
    });
  }

  /** Languages the documents are written in, most documents first (a hint for short questions' language). */
  documentLanguages(): string[] {
    return this.#stmt(
      "SELECT language FROM documents WHERE language IS NOT NULL AND language <> 'und' GROUP BY language ORDER BY COUNT(*) DESC, language",
    )
      .pluck()
      .all() as string[];
  }

  // ── chunks ──────────────────────────────────────────────────────────────────

  /** Replaces all chunks of a document; what hung off the old ones goes as in {@link deleteDocument}. */
  replaceChunks(documentId: number, chunks: readonly NewChunk[]): ChunkRecord[] {
    return this.transaction(() => {
      this.#requireDocument(documentId);
      this.#contentGeneration++;
      this.#removeChunks(this.#chunkIdsOf(documentId));
      const insert = this.#stmt(
        `INSERT INTO chunks (document_id, ord, text, language, start_offset, end_offset, page) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      ).pluck();
      for (const c of chunks) insert.get(documentId, c.ord, c.text, c.language, c.startOffset, c.endOffset, c.page);
      return this.chunksOfDocument(documentId);
    });
  }

  getChunk(id: number): ChunkRecord | undefined {
    return this.#stmt(`SELECT ${CHUNK_COLUMNS} FROM chunks WHERE id = ?`).get(id) as ChunkRecord | undefined;
  }

  /** Chunks in the order of `ids`; unknown ids are skipped. */
  getChunks(ids: readonly number[]): ChunkRecord[] {
    const rows = this.#stmt(`SELECT ${CHUNK_COLUMNS} FROM chunks WHERE id IN (SELECT value FROM json_each(?))`).all(
      JSON.stringify(ids),
    ) as ChunkRecord[];
    return inOrder(ids, rows);
  }

  chunksOfDocument(documentId: number): ChunkRecord[] {
    return this.#stmt(`SELECT ${CHUNK_COLUMNS} FROM chunks WHERE document_id = ? ORDER BY ord`).all(
      documentId,
    ) as ChunkRecord[];
  }

  updateChunk(id: number, update: ChunkUpdate): void {
    const current = this.getChunk(id);
    if (!current) throw this.#notFound('chunk', id);
    this.#stmt('UPDATE chunks SET summary = ?, english_text = ? WHERE id = ?').run(
      update.summary === undefined ? current.summary : update.summary,
      update.englishText === undefined ? current.englishText : update.englishText,
      id,
    );
  }

  /** The chunks just before and after `chunkId` in its document (MDER's ±1 context). */
  neighbours(chunkId: number): ChunkNeighbours {
    const chunk = this.getChunk(chunkId);
    if (!chunk) throw this.#notFound('chunk', chunkId);
    const previous = this.#stmt(
      `SELECT ${CHUNK_COLUMNS} FROM chunks WHERE document_id = ? AND ord < ? ORDER BY ord DESC LIMIT 1`,
    ).get(chunk.documentId, chunk.ord);
    const next = this.#stmt(
      `SELECT ${CHUNK_COLUMNS} FROM chunks WHERE document_id = ? AND ord > ? ORDER BY ord LIMIT 1`,
    ).get(chunk.documentId, chunk.ord);
    return { previous: (previous as ChunkRecord | undefined) ?? null, next: (next as ChunkRecord | undefined) ?? null };
  }

  // ── passages ────────────────────────────────────────────────────────────────

  /** Replaces all passages of a document (their vectors go with them); returns the new ones in order. */
  replacePassages(documentId: number, passages: readonly NewChunk[]): PassageRecord[] {
    return this.transaction(() => {
      this.#requireDocument(documentId);
      this.#removePassages(documentId);
      const insert = this.#stmt(
        'INSERT INTO passages (document_id, ord, text, start_offset, end_offset, page) VALUES (?, ?, ?, ?, ?, ?)',
      );
      for (const p of passages) insert.run(documentId, p.ord, p.text, p.startOffset, p.endOffset, p.page);
      return this.passagesOfDocument(documentId);
    });
  }

  /** Passages in the order of `ids`; unknown ids are skipped. */
  getPassages(ids: readonly number[]): PassageRecord[] {
    const rows = this.#stmt(
      `SELECT ${PASSAGE_COLUMNS} FROM passages p WHERE p.id IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(ids)) as PassageRow[];
    return inOrder(ids, rows.map(toPassage));
  }

  passagesOfDocument(documentId: number): PassageRecord[] {
    const rows = this.#stmt(`SELECT ${PASSAGE_COLUMNS} FROM passages p WHERE p.document_id = ? ORDER BY p.ord`).all(
      documentId,
    ) as PassageRow[];
    return rows.map(toPassage);
  }

  /** Documents with chunks but no passages (ingested before passages existed); cached until either changes. */
  countDocumentsWithoutPassages(): number {
    return this.#derive(
      'documentsWithoutPassages',
      () =>
        this.#stmt(
          'SELECT COUNT(*) FROM documents d WHERE d.chunk_count > 0 AND NOT EXISTS (SELECT 1 FROM passages p WHERE p.document_id = d.id)',
        )
          .pluck()
          .get() as number,
    );
  }

  // ── graph (GraphRepository.ts) ──────────────────────────────────────────────

  upsertEntity(name: string, type: string): number {
    return this.graph.upsertEntity(name, type);
  }

  getEntity(id: number): EntityRecord | undefined {
    return this.graph.getEntity(id);
  }

  getEntities(ids: readonly number[]): EntityRecord[] {
    return this.graph.getEntities(ids);
  }

  findEntityByName(name: string): EntityRecord | undefined {
    return this.graph.findEntityByName(name);
  }

  listEntities(options: ListEntitiesOptions = {}): EntityRecord[] {
    return this.graph.listEntities(options);
  }

  countEntities(options: { stale?: boolean; type?: string } = {}): number {
    return this.graph.countEntities(options);
  }

  mergeEntities(canonicalName: string, ids: readonly number[]): number {
    return this.graph.mergeEntities(canonicalName, ids);
  }

  setEntitySummary(id: number, summary: string, options: { incomplete?: boolean } = {}): void {
    this.graph.setEntitySummary(id, summary, options);
  }

  searchEntities(query: string, type?: string, limit = 50): EntityRecord[] {
    return this.graph.searchEntities(query, type, limit);
  }

  searchEntityNames(name: string, limit = 10): EntityRecord[] {
    return this.graph.searchEntityNames(name, limit);
  }

  entityTypes(): NamedCount[] {
    return this.graph.entityTypes();
  }

  addTriple(triple: NewTriple): number {
    return this.graph.addTriple(triple);
  }

  setTripleDescription(id: number, description: string): void {
    this.graph.setTripleDescription(id, description);
  }

  getTriples(ids: readonly number[]): TripleRecord[] {
    return this.graph.getTriples(ids);
  }

  triplesOfEntity(entityId: number, direction: TripleDirection = 'both', limit = 10_000): TripleRecord[] {
    return this.graph.triplesOfEntity(entityId, direction, limit);
  }

  triplesOfChunks(chunkIds: readonly number[]): TripleRecord[] {
    return this.graph.triplesOfChunks(chunkIds);
  }

  countTriples(): number {
    return this.graph.countTriples();
  }

  countTriplesOfEntity(entityId: number): number {
    return this.graph.countTriplesOfEntity(entityId);
  }

  relations(): NamedCount[] {
    return this.graph.relations();
  }

  addImportedRecords(records: ImportedRecords): void {
    this.graph.addImportedRecords(records);
  }

  addAliases(entityId: number, aliases: readonly string[]): void {
    this.graph.addAliases(entityId, aliases);
  }

  iterateEntities(options: Omit<IterateOptions, 'documentId'> = {}): Generator<EntityRecord> {
    return this.graph.iterateEntities(options);
  }

  iterateTriples(options: IterateOptions = {}): Generator<TripleRecord> {
    return this.graph.iterateTriples(options);
  }

  // ── vectors (VectorIndexRepository.ts) ─────────────────────────────────────

  putVectors(kind: VectorKind, items: readonly { id: number; vector: Float32Array }[]): void {
    this.vectors.putVectors(kind, items);
  }

  deleteVectors(kind: VectorKind, ids: readonly number[]): void {
    this.vectors.deleteVectors(kind, ids);
  }

  /** The `k` nearest rows of `kind` by cosine similarity; see {@link VectorIndexRepository.knn}. */
  knn(kind: VectorKind, query: Float32Array, k: number, options: KnnOptions = {}): ScoredId[] {
    return this.vectors.knn(kind, query, k, options);
  }

  knnOfEach(kind: VectorKind, queries: readonly Float32Array[], k: number, options: KnnOptions = {}): ScoredId[][] {
    return this.vectors.knnOfEach(kind, queries, k, options);
  }

  missingVectors(kind: VectorKind, limit = 1000, after = 0): number[] {
    return this.vectors.missingVectors(kind, limit, after);
  }

  countMissingOriginalVectors(): number {
    return this.vectors.countMissingOriginalVectors();
  }

  countMissingVectors(kind?: VectorKind): number {
    return this.vectors.countMissingVectors(kind);
  }

  // ── full text ───────────────────────────────────────────────────────────────

  /** Indexes (replaces) texts; they are word-segmented first so zh/ja/th work like spaced languages. */
  indexText(kind: TextIndexKind, items: readonly { id: number; text: string }[]): void {
    this.textIndex.indexText(kind, items);
  }

  removeText(kind: TextIndexKind, ids: readonly number[]): void {
    this.textIndex.removeText(kind, ids);
  }

  /** Ids of `kind` rows not in the text index yet, by id. */
  missingText(kind: TextIndexKind, limit = 1000): number[] {
    return this.textIndex.missingText(kind, limit);
  }

  /** BM25 over any of the query's words (score = -bm25, higher is better); see {@link TextIndexRepository.bm25}. */
  bm25(kind: TextIndexKind, query: string, k: number): ScoredId[] {
    return this.textIndex.bm25(kind, query, k);
  }

  // ── checkpoints, LLM-call cache, QA history ─────────────────────────────────

  getCheckpoint<T = unknown>(key: string): T | undefined {
    return this.jobState.getCheckpoint<T>(key);
  }

  /** Stores a JSON-serialisable value under `key` (e.g. `index:doc:12:map`). */
  setCheckpoint(key: string, value: unknown): void {
    this.jobState.setCheckpoint(key, value);
  }

  /** Deletes every checkpoint whose key starts with `prefix`. */
  clearCheckpoints(prefix: string): void {
    this.jobState.clearCheckpoints(prefix);
  }

  /** The LLM-call cache kept in this KB. */
  get callCache(): CallCacheStore {
    return this.jobState.callCache;
  }

  cacheStats(): CallCacheStats {
    return this.jobState.cacheStats();
  }

  addHistory(question: string, strategy: string, answerJson: string): number {
    return this.history.addHistory(question, strategy, answerJson);
  }

  /** Newest first; `search` is a case-insensitive substring of the question ('' for all). */
  listHistory(search = '', limit = 100): HistoryRecord[] {
    return this.history.listHistory(search, limit);
  }

  /** The change journal and sync state of this KB's external SPARQL store (kb/store/). */
  storeJournal(): StoreJournal {
    return (this.#storeJournal ??= new StoreJournal(this.#db));
  }

  // ── imported RDF ────────────────────────────────────────────────────────────

  /** Keeps a batch of an imported graph's original statements (N-Quads text) for export and the RDF view. */
  addImportedStatements(source: string, nquads: string): void {
    this.importedStatements.addImportedStatements(source, nquads);
  }

  /** The imported statements, batch by batch, in import order. */
  iterateImportedStatements(): Generator<string> {
    return this.importedStatements.iterateImportedStatements();
  }

  /**
   * Removes every entity, triple and imported statement, with their vectors and text index, from a
   * KB that holds no documents: undoes an RDF import that could not finish.
   */
  clearGraph(): void {
    if (this.stats().documents > 0)
      throw new PolyhopError('CONFLICT', 'clearGraph: the knowledge base holds documents');
    // Whole tables, set-based: an import of millions of statements undoes without listing their ids.
    this.transaction(() => {
      this.vectors.clearKinds(['triple', 'entity_name', 'entity_summary']);
      this.graph.clear();
      this.importedStatements.clear();
    });
  }

  // ── streaming and stats ─────────────────────────────────────────────────────

  /** Every document, by id, fetched in batches (other calls may run between two items). */
  *iterateDocuments(options: Omit<IterateOptions, 'documentId'> = {}): Generator<DocumentRecord> {
    yield* this.#paged<DocumentRecord>(
      `SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE id > :after ORDER BY id LIMIT :limit`,
      {},
      options.batchSize,
    );
  }

  /** Every chunk (or one document's), by id. */
  *iterateChunks(options: IterateOptions = {}): Generator<ChunkRecord> {
    const byDocument = options.documentId === undefined ? '' : 'AND document_id = :documentId';
    const params = options.documentId === undefined ? {} : { documentId: options.documentId };
    yield* this.#paged<ChunkRecord>(
      `SELECT ${CHUNK_COLUMNS} FROM chunks WHERE id > :after ${byDocument} ORDER BY id LIMIT :limit`,
      params,
      options.batchSize,
    );
  }

  stats(): KbStats {
    const count = (table: string): number => this.#stmt(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
    const vectors = this.vectors.counts();
    let sizeBytes = 0;
    for (const suffix of ['', '-wal'])
      if (existsSync(this.file + suffix)) sizeBytes += statSync(this.file + suffix).size;
    return {
      documents: count('documents'),
      chunks: count('chunks'),
      entities: count('entities'),
      triples: count('triples'),
      relations: this.#stmt('SELECT COUNT(DISTINCT relation) FROM triples').pluck().get() as number,
      vectors,
      sizeBytes,
    };
  }

  // ── internals ───────────────────────────────────────────────────────────────

  #stmt(sql: string): Statement {
    return this.#statements.get(sql);
  }

  *#paged<R extends { id: number }>(sql: string, params: Record<string, unknown>, batchSize = 1000): Generator<R> {
    // Keyset pages rather than Statement#iterate: an open iterator would lock the connection
    // against every other call until the consumer finishes.
    let after = 0;
    for (;;) {
      const rows = this.#stmt(sql).all({ ...params, after, limit: batchSize }) as R[];
      yield* rows;
      if (rows.length < batchSize) return;
      after = (rows[rows.length - 1] as R).id;
    }
  }

  /** `compute()`'s value, kept until this connection writes content or another one commits. */
  #derive<T>(name: string, compute: () => T): T {
    const key = `${this.#stmt('PRAGMA data_version').pluck().get() as number}:${this.#contentGeneration}`;
    if (this.#derived?.key !== key) this.#derived = { key, values: new Map() };
    const values = this.#derived.values;
    if (!values.has(name)) values.set(name, compute());
    return values.get(name) as T;
  }

  #exists(table: string, id: number): boolean {
    return this.#stmt(`SELECT 1 FROM ${table} WHERE id = ?`).get(id) !== undefined;
  }

  #requireDocument(id: number): DocumentRecord {
    return this.getDocument(id) ?? this.#throwNotFound('document', id);
  }

  #notFound(what: string, id: number): PolyhopError {
    return new PolyhopError('NOT_FOUND', `No ${what} ${id} in knowledge base "${this.meta().name}"`, {
      details: { what, id },
    });
  }

  #throwNotFound(what: string, id: number): never {
    throw this.#notFound(what, id);
  }

  #chunkIdsOf(documentId: number): number[] {
    return this.#stmt('SELECT id FROM chunks WHERE document_id = ?').pluck().all(documentId) as number[];
  }

  /**
   * Removes chunks and what exists only because of them (see deleteDocument). Must run inside a
   * transaction.
   */
  #removeChunks(chunkIds: number[]): RemovalResult {
    const { removedTripleIds, touchedEntityIds: touched } = this.graph.removeTriplesOnlyFrom(chunkIds);
    this.vectors.deleteRows('chunk', chunkIds);
    this.vectors.deleteRows('chunk_original', chunkIds);
    this.removeText('chunk', chunkIds);
    this.removeText('chunk_original', chunkIds);
    this.#stmt('DELETE FROM chunks WHERE id IN (SELECT value FROM json_each(?))').run(JSON.stringify(chunkIds));
    const { removedEntityIds, touchedEntityIds } = this.graph.removeOrphans(touched);
    return {
      touchedEntityIds,
      removedEntityIds,
      removedTripleIds: removedTripleIds.sort((a, b) => a - b),
      removedChunkIds: chunkIds,
    };
  }

  /** Removes a document's passages with their vectors. Must run inside a transaction. */
  #removePassages(documentId: number): void {
    this.#contentGeneration++;
    this.vectors.deleteRows(
      'passage',
      this.#stmt('SELECT id FROM passages WHERE document_id = ?').pluck().all(documentId) as number[],
    );
    this.#stmt('DELETE FROM passages WHERE document_id = ?').run(documentId);
  }
}

function toPassage(row: PassageRow): PassageRecord {
  return { ...row, chunkIds: JSON.parse(row.chunkIds) as number[] };
}

function inOrder<R extends { id: number }>(ids: readonly number[], rows: R[]): R[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

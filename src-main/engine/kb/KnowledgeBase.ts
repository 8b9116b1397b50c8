import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database as Db, Statement } from 'better-sqlite3';
import { StatementCache } from './utils/StatementCache.js';
import { PolyhopError } from '../base/errors.js';
import { sqlNotEnglish } from '../base/englishLanguage.js';
import { missingCase } from '../base/assert.js';
import type { CallCacheStore } from '../models/CallCache.js';
import { cleanName, entityKey } from './entityKey.js';
import { LATEST_SCHEMA_VERSION, assertSupportedVersion, migrate, schemaVersion } from './migrations/migrate.js';
import { HistoryRepository } from './HistoryRepository.js';
import { ImportedStatementsRepository } from './ImportedStatementsRepository.js';
import { JobStateRepository } from './JobStateRepository.js';
import { TextIndexRepository } from './TextIndexRepository.js';
import { MetaRepository } from './MetaRepository.js';
import type { RepositoryContext } from './RepositoryContext.js';
import { backupKb, openDatabase, notAKb, readKbMeta, verifyKbFile } from './KbFile.js';
import { StoreJournal } from './store/StoreJournal.js';
import { checkBaseIri } from './utils/baseIri.js';
import { BinaryIndex } from './utils/BinaryIndex.js';
import { ftsDocument, ftsQuery } from './utils/ftsText.js';
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

export interface KnnOptions {
  /** Full float scan instead of the binary prefilter + float rerank (ground truth for benchmarks). Default: false. */
  exact?: boolean;
  /** Candidates taken from the binary prefilter per wanted result, before the float rerank. Default: 40. */
  oversample?: number;
  /**
   * `chunk` only: rank English chunks alone (their English vector also stands for their text as
   * written, see chunkCorpora.ts). Candidates are filtered before the float rerank. Default: false.
   */
  englishChunksOnly?: boolean;
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

/** One batch of an imported graph for {@link KnowledgeBase.addImportedRecords}; entities and triples name entities by name. */
export interface ImportedRecords {
  entities: readonly { name: string; type: string }[];
  /** `text` is the triple's BM25 text (its verbalisation). */
  triples: readonly { sourceName: string; relation: string; targetName: string; text: string }[];
  aliases: readonly { name: string; aliases: readonly string[] }[];
}

export interface IterateOptions {
  /** Only rows belonging to this document (chunks, or triples with provenance in its chunks). Default: all. */
  documentId?: number;
  /** Rows fetched per round trip. Default: 1000. */
  batchSize?: number;
}

const VECTOR_OWNERS: Record<VectorKind, string> = {
  chunk: 'chunks',
  chunk_original: 'chunks',
  entity_name: 'entities',
  entity_summary: 'entities',
  triple: 'triples',
  passage: 'passages',
};
/** What a row of each vector owner table is called in errors. */
const ROW_NAMES: Record<string, string> = {
  chunks: 'chunk',
  entities: 'entity',
  triples: 'triple',
  passages: 'passage',
};
const VECTOR_KINDS = Object.keys(VECTOR_OWNERS) as VectorKind[];

/** Sign-bit codes read per query when an in-memory index is loaded (a few MB of hex text each). */
const CODE_PAGE_ROWS = 65_536;

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
const ENTITY_COLUMNS = `e.id, e.name, e.type, e.summary, e.summary_stale AS summaryStale,
  (SELECT json_group_array(alias) FROM entity_aliases WHERE entity_id = e.id) AS aliases`;
const TRIPLE_SELECT = `SELECT t.id, t.source_id AS sourceId, s.name AS sourceName, t.relation, t.target_id AS targetId,
  o.name AS targetName, t.description,
  (SELECT json_group_array(chunk_id) FROM triple_chunks WHERE triple_id = t.id) AS chunkIds
  FROM triples t JOIN entities s ON s.id = t.source_id JOIN entities o ON o.id = t.target_id`;

type EntityRow = Omit<EntityRecord, 'summaryStale' | 'aliases'> & { summaryStale: number; aliases: string };
type TripleRow = Omit<TripleRecord, 'chunkIds'> & { chunkIds: string };
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
  /** In-memory sign-bit codes per vector kind, loaded on first search; dropped on any rollback. */
  readonly #binary = new Map<VectorKind, BinaryIndex>();
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
  /** Meta and settings (MetaRepository.ts). */
  readonly metadata: MetaRepository;
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
    this.jobState = new JobStateRepository(db, this.#statements);
    this.history = new HistoryRepository(this.#statements);
    this.textIndex = new TextIndexRepository(context);
    this.importedStatements = new ImportedStatementsRepository(this.#statements);
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
    this.#binary.clear();
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
      this.#binary.clear();
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
    const value = this.metadata.value('embedder');
    return value === undefined ? null : (JSON.parse(value) as EmbedderRecord);
  }

  /**
   * Records the embedder whose vectors this KB holds. When it differs from the recorded one, every
   * stored vector is dropped (they are not comparable): this is how a KB is re-embedded.
   */
  setEmbedder(identity: string, dimension: number): void {
    if (!identity || !Number.isInteger(dimension) || dimension < 1 || dimension > 8192) {
      throw new PolyhopError(
        'BAD_INPUT',
        `${this.file}: embedder needs an identity and a dimension in 1..8192 (got "${identity}", ${dimension})`,
      );
    }
    const current = this.embedder();
    if (current?.identity === identity && current.dimension === dimension) return;
    this.transaction(() => {
      for (const kind of VECTOR_KINDS) {
        this.#db.exec(`DELETE FROM vec_${kind}; DELETE FROM vcode_${kind};`);
        this.#bumpGeneration(kind);
      }
      this.metadata.setValue('embedder', JSON.stringify({ identity, dimension } satisfies EmbedderRecord));
    });
    this.#binary.clear();
  }

  /** The similarity calibration recorded for the KB's current embedder, or null (none yet, or made with another embedder). */
  similarityCalibration(): SimilarityCalibration | null {
    const value = this.metadata.value('similarityCalibration');
    const calibration = value === undefined ? null : (JSON.parse(value) as SimilarityCalibration);
    return calibration && calibration.embedder === this.embedder()?.identity ? calibration : null;
  }

  /** Records a calibration (it is given, never computed here: the KB calls no model). */
  setSimilarityCalibration(calibration: SimilarityCalibration): void {
    this.metadata.setValue('similarityCalibration', JSON.stringify(calibration));
  }

  /**
   * Sets the embedder when none is recorded; throws CONFLICT (offering re-embedding) when another
   * identity or dimension is recorded.
   */
  assertEmbedder(identity: string, dimension: number): void {
    const current = this.embedder();
    if (!current) return this.setEmbedder(identity, dimension);
    if (current.identity === identity && current.dimension === dimension) return;
    throw new PolyhopError(
      'CONFLICT',
      `Knowledge base "${this.meta().name}" was embedded with ${current.identity} (${current.dimension} dimensions), not ${identity} (${dimension}). ` +
        `Load ${current.identity} again, or re-embed the knowledge base with ${identity} (\`polyhop kb reembed\`, or Re-embed on the Corpus screen: its vectors are rebuilt; documents, entities and triples are kept).`,
      { details: { recorded: current, offered: { identity, dimension }, remedy: 're-embed' } },
    );
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

  // ── entities ────────────────────────────────────────────────────────────────

  /**
   * The id of the entity named `name` (or aliased so by a merge), created with `type` if none.
   * Names match exactly on {@link entityKey}: NFKC, case-folded, whitespace trimmed and collapsed.
   * An existing entity keeps its type.
   */
  upsertEntity(name: string, type: string): number {
    const key = entityKey(name);
    if (!key) throw new PolyhopError('BAD_INPUT', 'An entity needs a non-blank name', { details: { name } });
    return this.transaction(() => {
      const existing = this.#entityIdByKey(key);
      if (existing !== undefined) return existing;
      const id = this.#stmt(
        'INSERT INTO entities (name, name_key, type, summary_stale) VALUES (?, ?, ?, 1) RETURNING id',
      )
        .pluck()
        .get(cleanName(name), key, cleanName(type) || 'unknown') as number;
      this.#contentGeneration++;
      this.#indexEntityText(id);
      return id;
    });
  }

  getEntity(id: number): EntityRecord | undefined {
    const row = this.#stmt(`SELECT ${ENTITY_COLUMNS} FROM entities e WHERE e.id = ?`).get(id) as EntityRow | undefined;
    return row && toEntity(row);
  }

  /** Entities in the order of `ids`; unknown ids are skipped. */
  getEntities(ids: readonly number[]): EntityRecord[] {
    const rows = this.#stmt(
      `SELECT ${ENTITY_COLUMNS} FROM entities e WHERE e.id IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(ids)) as EntityRow[];
    return inOrder(ids, rows.map(toEntity));
  }

  /** Languages the documents are written in, most documents first (a hint for short questions' language). */
  documentLanguages(): string[] {
    return this.#stmt(
      "SELECT language FROM documents WHERE language IS NOT NULL AND language <> 'und' GROUP BY language ORDER BY COUNT(*) DESC, language",
    )
      .pluck()
      .all() as string[];
  }

  /** By name or alias, on the same key as {@link upsertEntity}. */
  findEntityByName(name: string): EntityRecord | undefined {
    const id = this.#entityIdByKey(entityKey(name));
    return id === undefined ? undefined : this.getEntity(id);
  }

  /** Entities by id. */
  listEntities(options: ListEntitiesOptions = {}): EntityRecord[] {
    const { offset = 0, limit = 1000 } = options;
    const { where, params } = entityFilter(options);
    const rows = this.#stmt(
      `SELECT ${ENTITY_COLUMNS} FROM entities e ${where} ORDER BY e.id LIMIT :limit OFFSET :offset`,
    ).all({
      ...params,
      limit,
      offset,
    }) as EntityRow[];
    return rows.map(toEntity);
  }

  countEntities(options: { stale?: boolean; type?: string } = {}): number {
    const { where, params } = entityFilter(options);
    return this.#stmt(`SELECT COUNT(*) FROM entities e ${where}`).pluck().get(params) as number;
  }

  /**
   * Merges `ids` into one entity named `canonicalName` and returns its id. The kept entity is the
   * one already holding that name (or alias), else the first of `ids`. The other names become
   * aliases; triples are re-pointed, and those that now coincide are merged with their provenance;
   * merged entities and their vectors are deleted; the kept one is marked stale. Triples whose text
   * changed lose their vector and FTS row (see {@link missingVectors}). CONFLICT when
   * `canonicalName` belongs to an entity outside `ids`.
   */
  mergeEntities(canonicalName: string, ids: readonly number[]): number {
    const key = entityKey(canonicalName);
    if (!key) throw new PolyhopError('BAD_INPUT', 'A merge needs a non-blank canonical name');
    const unique = [...new Set(ids)];
    if (unique.length === 0) throw new PolyhopError('BAD_INPUT', 'A merge needs at least one entity');
    return this.transaction(() => {
      const entities = unique.map((id) => this.getEntity(id) ?? this.#throwNotFound('entity', id));
      const holder = this.#entityIdByKey(key);
      if (holder !== undefined && !unique.includes(holder)) {
        const other = this.getEntity(holder);
        throw new PolyhopError(
          'CONFLICT',
          `Cannot merge into "${cleanName(canonicalName)}": that name belongs to entity ${holder} ("${other?.name}"), which is not in the merge`,
          {
            details: { canonicalName, holder, ids: unique },
          },
        );
      }
      const keptId = holder ?? (unique[0] as number);
      const kept = entities.find((e) => e.id === keptId) as EntityRecord;
      const others = entities.filter((e) => e.id !== keptId);
      const otherIds = others.map((e) => e.id);
      const renamed = kept.name !== cleanName(canonicalName);
      const changedTriples = new Set<number>();

      // Re-point triples; one that now coincides with an existing triple folds into it.
      const affected = this.#stmt(
        `SELECT id, source_id AS sourceId, relation, target_id AS targetId, description FROM triples
         WHERE source_id IN (SELECT value FROM json_each(:ids)) OR target_id IN (SELECT value FROM json_each(:ids)) ORDER BY id`,
      ).all({ ids: JSON.stringify(otherIds) }) as {
        id: number;
        sourceId: number;
        relation: string;
        targetId: number;
        description: string | null;
      }[];
      const repoint = (id: number): number => (otherIds.includes(id) ? keptId : id);
      const removed: number[] = [];
      for (const t of affected) {
        const sourceId = repoint(t.sourceId);
        const targetId = repoint(t.targetId);
        const twin = this.#stmt(
          'SELECT id FROM triples WHERE source_id = ? AND relation = ? AND target_id = ? AND id <> ?',
        )
          .pluck()
          .get(sourceId, t.relation, targetId, t.id) as number | undefined;
        if (twin === undefined) {
          this.#stmt('UPDATE triples SET source_id = ?, target_id = ? WHERE id = ?').run(sourceId, targetId, t.id);
          changedTriples.add(t.id);
        } else {
          this.#stmt(
            'INSERT OR IGNORE INTO triple_chunks (triple_id, chunk_id) SELECT ?, chunk_id FROM triple_chunks WHERE triple_id = ?',
          ).run(twin, t.id);
          this.#stmt('UPDATE triples SET description = COALESCE(description, ?) WHERE id = ?').run(t.description, twin);
          removed.push(t.id);
        }
      }
      this.#deleteTriples(removed);
      for (const id of removed) changedTriples.delete(id);

      // Names and aliases of the merged entities move to the kept one.
      this.#stmt('UPDATE entity_aliases SET entity_id = ? WHERE entity_id IN (SELECT value FROM json_each(?))').run(
        keptId,
        JSON.stringify(otherIds),
      );
      this.#deleteEntities(otherIds);
      const addAlias = this.#stmt(
        'INSERT OR IGNORE INTO entity_aliases (alias_key, alias, entity_id) VALUES (?, ?, ?)',
      );
      for (const other of others) addAlias.run(entityKey(other.name), other.name, keptId);
      if (renamed) {
        this.#stmt('DELETE FROM entity_aliases WHERE alias_key = ?').run(key);
        this.#stmt('UPDATE entities SET name = ?, name_key = ? WHERE id = ?').run(
          cleanName(canonicalName),
          key,
          keptId,
        );
        if (entityKey(kept.name) !== key) addAlias.run(entityKey(kept.name), kept.name, keptId);
        this.#deleteVectorRows('entity_name', [keptId]);
        for (const id of this.#stmt('SELECT id FROM triples WHERE source_id = ? OR target_id = ?')
          .pluck()
          .all(keptId, keptId) as number[])
          changedTriples.add(id);
      }
      this.#stmt('UPDATE entities SET summary_stale = 1 WHERE id = ?').run(keptId);
      this.#indexEntityText(keptId);
      // Their verbalisation names a merged or renamed entity: re-embed and re-index them.
      this.#deleteVectorRows('triple', [...changedTriples]);
      this.removeText('triple', [...changedTriples]);
      return keptId;
    });
  }

  /**
   * Stores a (re-)reduced summary, clears `summaryStale` (unless `incomplete`: a summary some facts
   * did not reach stays stale, so the next run reduces it again), drops the outdated summary vector.
   */
  setEntitySummary(id: number, summary: string, options: { incomplete?: boolean } = {}): void {
    this.transaction(() => {
      const changes = this.#stmt('UPDATE entities SET summary = ?, summary_stale = ? WHERE id = ?').run(
        summary,
        options.incomplete ? 1 : 0,
        id,
      ).changes;
      if (changes === 0) throw this.#notFound('entity', id);
      this.#deleteVectorRows('entity_summary', [id]);
      this.#indexEntityText(id);
    });
  }

  /**
   * Full-text prefix search over names (weighted most), aliases and summaries, in any language;
   * FTS5 syntax in `query` is inert. An empty query lists entities by name.
   */
  searchEntities(query: string, type?: string, limit = 50): EntityRecord[] {
    const typeFilter = type === undefined ? '' : 'AND e.type = :type';
    const params = type === undefined ? { limit } : { limit, type };
    const match = ftsQuery(query, { prefix: true });
    if (match === null) {
      const rows = this.#stmt(
        `SELECT ${ENTITY_COLUMNS} FROM entities e WHERE 1 ${typeFilter} ORDER BY e.name_key LIMIT :limit`,
      ).all(params) as EntityRow[];
      return rows.map(toEntity);
    }
    const rows = this.#stmt(
      `SELECT ${ENTITY_COLUMNS} FROM (SELECT rowid AS id, bm25(fts_entity, 10.0, 5.0, 1.0) AS rank FROM fts_entity WHERE fts_entity MATCH :match) f
       JOIN entities e ON e.id = f.id WHERE 1 ${typeFilter} ORDER BY f.rank, e.id LIMIT :limit`,
    ).all({ ...params, match }) as EntityRow[];
    return rows.map(toEntity);
  }

  /**
   * Entities whose name or aliases hold words of `name` (full-text, prefix, accents folded), best
   * first; summaries are not searched (Disambiguate's lexical candidates).
   */
  searchEntityNames(name: string, limit = 10): EntityRecord[] {
    const match = ftsQuery(name, { prefix: true });
    if (match === null) return [];
    const rows = this.#stmt(
      `SELECT ${ENTITY_COLUMNS} FROM (SELECT rowid AS id, bm25(fts_entity, 10.0, 5.0, 1.0) AS rank FROM fts_entity WHERE fts_entity MATCH :match) f
       JOIN entities e ON e.id = f.id ORDER BY f.rank, e.id LIMIT :limit`,
    ).all({ match: `{name aliases} : (${match})`, limit }) as EntityRow[];
    return rows.map(toEntity);
  }

  /** Entity types by count, most used first; cached until entities change. */
  entityTypes(): NamedCount[] {
    return [
      ...this.#derive(
        'entityTypes',
        () =>
          this.#stmt(
            'SELECT type AS name, COUNT(*) AS count FROM entities GROUP BY type ORDER BY count DESC, name',
          ).all() as NamedCount[],
      ),
    ];
  }

  // ── triples ─────────────────────────────────────────────────────────────────

  /**
   * Adds the triple (or finds it: unique on source, relation, target) and records `chunkId` as
   * provenance. New triples or new provenance mark both entities stale. NOT_FOUND for an unknown
   * entity or chunk.
   */
  addTriple(triple: NewTriple): number {
    const relation = cleanName(triple.relation);
    if (!relation)
      throw new PolyhopError('BAD_INPUT', 'A triple needs a non-blank relation', { details: { ...triple } });
    return this.transaction(() => {
      let id = this.#stmt('SELECT id FROM triples WHERE source_id = ? AND relation = ? AND target_id = ?')
        .pluck()
        .get(triple.sourceId, relation, triple.targetId) as number | undefined;
      let changed = false;
      if (id === undefined) {
        for (const entityId of [triple.sourceId, triple.targetId])
          if (!this.#exists('entities', entityId)) throw this.#notFound('entity', entityId);
        id = this.#stmt('INSERT INTO triples (source_id, relation, target_id) VALUES (?, ?, ?) RETURNING id')
          .pluck()
          .get(triple.sourceId, relation, triple.targetId) as number;
        this.#contentGeneration++;
        changed = true;
      }
      if (triple.chunkId !== null) {
        if (!this.#exists('chunks', triple.chunkId)) throw this.#notFound('chunk', triple.chunkId);
        changed =
          this.#stmt('INSERT OR IGNORE INTO triple_chunks (triple_id, chunk_id) VALUES (?, ?)').run(id, triple.chunkId)
            .changes > 0 || changed;
      }
      if (changed)
        this.#stmt('UPDATE entities SET summary_stale = 1 WHERE id IN (?, ?)').run(triple.sourceId, triple.targetId);
      return id;
    });
  }

  setTripleDescription(id: number, description: string): void {
    const changes = this.#stmt('UPDATE triples SET description = ? WHERE id = ?').run(description, id).changes;
    if (changes === 0) throw this.#notFound('triple', id);
  }

  /** Triples in the order of `ids`; unknown ids are skipped. */
  getTriples(ids: readonly number[]): TripleRecord[] {
    const rows = this.#stmt(`${TRIPLE_SELECT} WHERE t.id IN (SELECT value FROM json_each(?))`).all(
      JSON.stringify(ids),
    ) as TripleRow[];
    return inOrder(ids, rows.map(toTriple));
  }

  triplesOfEntity(entityId: number, direction: TripleDirection = 'both', limit = 10_000): TripleRecord[] {
    let where: string;
    switch (direction) {
      case 'out':
        where = 't.source_id = :id';
        break;
      case 'in':
        where = 't.target_id = :id';
        break;
      case 'both':
        where =
          't.id IN (SELECT id FROM triples WHERE source_id = :id UNION SELECT id FROM triples WHERE target_id = :id)';
        break;
      default:
        throw missingCase(direction);
    }
    const rows = this.#stmt(`${TRIPLE_SELECT} WHERE ${where} ORDER BY t.id LIMIT :limit`).all({
      id: entityId,
      limit,
    }) as TripleRow[];
    return rows.map(toTriple);
  }

  /** Triples with provenance in any of the chunks, by id. */
  triplesOfChunks(chunkIds: readonly number[]): TripleRecord[] {
    const rows = this.#stmt(
      `${TRIPLE_SELECT} WHERE t.id IN (SELECT triple_id FROM triple_chunks WHERE chunk_id IN (SELECT value FROM json_each(?))) ORDER BY t.id`,
    ).all(JSON.stringify(chunkIds)) as TripleRow[];
    return rows.map(toTriple);
  }

  countTriples(): number {
    return this.#stmt('SELECT COUNT(*) FROM triples').pluck().get() as number;
  }

  /** Triples with the entity as source or target. */
  countTriplesOfEntity(entityId: number): number {
    return this.#stmt(
      'SELECT (SELECT COUNT(*) FROM triples WHERE source_id = :id) + (SELECT COUNT(*) FROM triples WHERE target_id = :id AND source_id <> :id)',
    )
      .pluck()
      .get({ id: entityId }) as number;
  }

  /** Relations by count, most used first; cached until triples change. */
  relations(): NamedCount[] {
    return [
      ...this.#derive(
        'relations',
        () =>
          this.#stmt(
            'SELECT relation AS name, COUNT(*) AS count FROM triples GROUP BY relation ORDER BY count DESC, name',
          ).all() as NamedCount[],
      ),
    ];
  }

  // ── vectors ─────────────────────────────────────────────────────────────────

  /**
   * Stores (replaces) vectors of `kind`. Needs a recorded embedder; each vector must have its
   * dimension (CONFLICT otherwise), be finite and non-zero (BAD_INPUT), and belong to an existing
   * row (NOT_FOUND). Vectors are L2-normalised on the way in.
   */
  putVectors(kind: VectorKind, items: readonly { id: number; vector: Float32Array }[]): void {
    const owner = vectorOwner(kind);
    const dimension = this.#requireEmbedder().dimension;
    const prepared = items.map(({ id, vector }) => {
      if (vector.length !== dimension) {
        throw new PolyhopError(
          'CONFLICT',
          `${kind} vector for ${id} has ${vector.length} dimensions; this knowledge base holds ${dimension}`,
          {
            details: { kind, id, dimension: vector.length, expected: dimension },
          },
        );
      }
      const unit = normalised(vector);
      if (!unit)
        throw new PolyhopError('BAD_INPUT', `${kind} vector for ${id} is zero or not finite`, {
          details: { kind, id },
        });
      const code = BinaryIndex.encode(unit);
      return { id, vector: bytesOf(unit), code: bytesOf(code) };
    });
    this.transaction(() => {
      const index = this.#currentIndex(kind);
      const putVector = this.#stmt(`INSERT OR REPLACE INTO vec_${kind} (id, vector) VALUES (?, ?)`);
      const putCode = this.#stmt(`INSERT OR REPLACE INTO vcode_${kind} (id, code) VALUES (?, ?)`);
      for (const item of prepared) {
        if (!this.#exists(owner, item.id)) throw this.#notFound(ROW_NAMES[owner] ?? owner, item.id);
        putVector.run(item.id, item.vector);
        putCode.run(item.id, item.code);
      }
      const generation = this.#bumpGeneration(kind);
      if (index) {
        for (const item of prepared) index.set(item.id, item.code);
        index.generation = generation;
      }
    });
  }

  deleteVectors(kind: VectorKind, ids: readonly number[]): void {
    vectorOwner(kind);
    this.transaction(() => this.#deleteVectorRows(kind, ids));
  }

  /**
   * The `k` nearest rows of `kind` by cosine similarity (score = cosine, higher is better).
   * Sign-bit codes pick `k × oversample` candidates by Hamming distance, which are reranked exactly
   * on their float vectors; `exact` scans every float vector instead. Empty when no embedder is set.
   */
  knn(kind: VectorKind, query: Float32Array, k: number, options: KnnOptions = {}): ScoredId[] {
    return this.knnOfEach(kind, [query], k, options)[0] as ScoredId[];
  }

  /** {@link knn} of each query, with one pass over the sign-bit codes for several queries. */
  knnOfEach(kind: VectorKind, queries: readonly Float32Array[], k: number, options: KnnOptions = {}): ScoredId[][] {
    vectorOwner(kind);
    const embedder = this.embedder();
    if (!embedder || k <= 0) return queries.map(() => []);
    for (const query of queries) {
      if (query.length !== embedder.dimension) {
        throw new PolyhopError(
          'CONFLICT',
          `Query vector has ${query.length} dimensions; this knowledge base holds ${embedder.dimension} (${embedder.identity})`,
          {
            details: { dimension: query.length, expected: embedder.dimension },
          },
        );
      }
    }
    if (options.englishChunksOnly && kind !== 'chunk')
      throw new PolyhopError('BAD_INPUT', `englishChunksOnly applies to chunk vectors, not ${kind}`);
    // A point lookup per candidate in the partial index of non-English chunks.
    const filter = options.englishChunksOnly
      ? `AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = v.id AND ${sqlNotEnglish('c.language')})`
      : '';
    const units = queries.map(normalised);
    const usable = units.filter((u): u is Float32Array => u !== null);
    let candidates: number[][] = [];
    if (!options.exact && usable.length > 0) {
      const index = this.#loadedIndex(kind, embedder.dimension);
      candidates = index.candidatesOfEach(
        usable.map((u) => BinaryIndex.encode(u)),
        Math.max(k, Math.ceil(k * (options.oversample ?? 40))),
      );
    }
    let next = 0;
    return units.map((unit) => {
      if (!unit) return [];
      const blob = bytesOf(unit);
      let rows: { id: number; distance: number }[];
      if (options.exact) {
        rows = this.#stmt(
          `SELECT id, vec_distance_cosine(vector, ?) AS distance FROM vec_${kind} v WHERE 1 ${filter} ORDER BY distance, id LIMIT ?`,
        ).all(blob, k) as typeof rows;
      } else {
        rows = this.#stmt(
          `SELECT id, vec_distance_cosine(vector, ?) AS distance FROM vec_${kind} v WHERE id IN (SELECT value FROM json_each(?)) ${filter} ORDER BY distance, id LIMIT ?`,
        ).all(blob, JSON.stringify(candidates[next++]), k) as typeof rows;
      }
      return rows.map((r) => ({ id: r.id, score: 1 - r.distance }));
    });
  }

  /** Ids of `kind` rows without a vector yet, by id, after id `after`: what an embedding stage still has to do, a page at a time. */
  missingVectors(kind: VectorKind, limit = 1000, after = 0): number[] {
    return this.#stmt(`SELECT o.id ${missingVectorsFrom(kind)} AND o.id > ? ORDER BY o.id LIMIT ?`)
      .pluck()
      .all(after, limit) as number[];
  }

  /**
   * Non-English chunks embedded in English but without an original-language vector: a KB indexed
   * before that family existed (migration 0005), or a re-embed cut short. The next Index or
   * Re-embed job makes them. Cached until chunks or either family's vectors change.
   */
  countMissingOriginalVectors(): number {
    const generations = `${this.#generation('chunk')}:${this.#generation('chunk_original')}`;
    return this.#derive(
      `missingOriginalVectors:${generations}`,
      () =>
        this.#stmt(
          `SELECT COUNT(*) FROM chunks o WHERE ${sqlNotEnglish('o.language')} AND EXISTS (SELECT 1 FROM vec_chunk v WHERE v.id = o.id)
           AND NOT EXISTS (SELECT 1 FROM vec_chunk_original v WHERE v.id = o.id)`,
        )
          .pluck()
          .get() as number,
    );
  }

  /** How many `kind` rows (every kind when omitted) have no vector yet. */
  countMissingVectors(kind?: VectorKind): number {
    if (!kind) return VECTOR_KINDS.reduce((n, k) => n + this.countMissingVectors(k), 0);
    return this.#stmt(`SELECT COUNT(*) ${missingVectorsFrom(kind)}`)
      .pluck()
      .get() as number;
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
      for (const kind of ['triple', 'entity_name', 'entity_summary'] as const) {
        this.#db.exec(`DELETE FROM vec_${kind}; DELETE FROM vcode_${kind};`);
        this.#bumpGeneration(kind);
        this.#binary.delete(kind);
      }
      this.#db
        .exec(`INSERT INTO fts_triple (fts_triple) VALUES ('delete-all'); INSERT INTO fts_entity (fts_entity) VALUES ('delete-all');
        DELETE FROM triples; DELETE FROM entity_aliases; DELETE FROM entities; DELETE FROM imported_statements;`);
      this.#contentGeneration++;
    });
  }

  /**
   * Adds one batch of an imported graph in one transaction, as {@link upsertEntity},
   * {@link addTriple} (no provenance), {@link indexText} and {@link addAliases} would, minus their
   * per-row savepoints and checks (~4x faster; an import writes millions of rows): an entity whose
   * name is taken (by a name; aliases are not consulted) is that entity; a repeated triple is kept
   * once; aliases are indexed with their entity. NOT_FOUND for a triple naming no entity,
   * BAD_INPUT for a blank name or relation.
   */
  addImportedRecords(records: ImportedRecords): void {
    const idByName = this.#stmt('SELECT id FROM entities WHERE name_key = ?').pluck();
    // Triples mostly name entities of their own batch: those are found without a query.
    const created = new Map<string, number>();
    const idOf = (name: string): number => {
      const id = created.get(name) ?? (idByName.get(entityKey(name)) as number | undefined);
      if (id === undefined)
        throw new PolyhopError('NOT_FOUND', `No entity named "${name}" in knowledge base "${this.meta().name}"`, {
          details: { what: 'entity', name },
        });
      return id;
    };
    this.transaction(() => {
      this.#contentGeneration++;
      const insertEntity = this.#stmt(
        'INSERT INTO entities (name, name_key, type, summary_stale) VALUES (?, ?, ?, 1) ON CONFLICT (name_key) DO NOTHING RETURNING id',
      ).pluck();
      const indexEntity = this.#stmt("INSERT INTO fts_entity (rowid, name, aliases, summary) VALUES (?, ?, '', '')");
      for (const { name, type } of records.entities) {
        const key = entityKey(name);
        if (!key) throw new PolyhopError('BAD_INPUT', 'An entity needs a non-blank name', { details: { name } });
        const id = insertEntity.get(cleanName(name), key, cleanName(type) || 'unknown') as number | undefined;
        if (id === undefined) continue;
        indexEntity.run(id, ftsDocument(cleanName(name)));
        created.set(name, id);
      }
      const insertTriple = this.#stmt(
        'INSERT INTO triples (source_id, relation, target_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING RETURNING id',
      ).pluck();
      const indexTriple = this.#stmt('INSERT INTO fts_triple (rowid, text) VALUES (?, ?)');
      for (const t of records.triples) {
        const relation = cleanName(t.relation);
        if (!relation)
          throw new PolyhopError('BAD_INPUT', 'A triple needs a non-blank relation', { details: { ...t } });
        const id = insertTriple.get(idOf(t.sourceName), relation, idOf(t.targetName)) as number | undefined;
        if (id !== undefined) indexTriple.run(id, ftsDocument(t.text));
      }
      for (const { name, aliases } of records.aliases) {
        const id = idOf(name);
        this.addAliases(id, aliases);
        this.#indexEntityText(id);
      }
    });
  }

  /** Records other names of an entity (e.g. an imported node's further labels); names taken by another entity are skipped. */
  addAliases(entityId: number, aliases: readonly string[]): void {
    const add = this.#stmt(
      'INSERT OR IGNORE INTO entity_aliases (alias_key, alias, entity_id) SELECT ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM entities WHERE name_key = ?)',
    );
    for (const alias of aliases) {
      const key = entityKey(alias);
      if (key) add.run(key, alias, entityId, key);
    }
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

  /** Every entity, by id. */
  *iterateEntities(options: Omit<IterateOptions, 'documentId'> = {}): Generator<EntityRecord> {
    for (const row of this.#paged<EntityRow>(
      `SELECT ${ENTITY_COLUMNS} FROM entities e WHERE e.id > :after ORDER BY e.id LIMIT :limit`,
      {},
      options.batchSize,
    )) {
      yield toEntity(row);
    }
  }

  /** Every triple (or those with provenance in one document's chunks), by id. */
  *iterateTriples(options: IterateOptions = {}): Generator<TripleRecord> {
    const byDocument =
      options.documentId === undefined
        ? ''
        : 'AND t.id IN (SELECT tc.triple_id FROM triple_chunks tc JOIN chunks c ON c.id = tc.chunk_id WHERE c.document_id = :documentId)';
    const params = options.documentId === undefined ? {} : { documentId: options.documentId };
    for (const row of this.#paged<TripleRow>(
      `${TRIPLE_SELECT} WHERE t.id > :after ${byDocument} ORDER BY t.id LIMIT :limit`,
      params,
      options.batchSize,
    )) {
      yield toTriple(row);
    }
  }

  stats(): KbStats {
    const count = (table: string): number => this.#stmt(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
    const vectors = Object.fromEntries(VECTOR_KINDS.map((kind) => [kind, count(`vcode_${kind}`)])) as Record<
      VectorKind,
      number
    >;
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

  #requireEmbedder(): EmbedderRecord {
    const embedder = this.embedder();
    if (!embedder)
      throw new PolyhopError(
        'CONFLICT',
        `Knowledge base "${this.meta().name}" has no embedder recorded yet; set one before storing vectors`,
      );
    return embedder;
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

  #entityIdByKey(key: string): number | undefined {
    return (this.#stmt('SELECT id FROM entities WHERE name_key = ?').pluck().get(key) ??
      this.#stmt('SELECT entity_id FROM entity_aliases WHERE alias_key = ?').pluck().get(key)) as number | undefined;
  }

  /** Keeps the entity's FTS row (name, aliases, summary) in step with the entity. */
  #indexEntityText(id: number): void {
    this.#stmt('DELETE FROM fts_entity WHERE rowid = ?').run(id);
    const entity = this.getEntity(id);
    if (!entity) return;
    this.#stmt('INSERT INTO fts_entity (rowid, name, aliases, summary) VALUES (?, ?, ?, ?)').run(
      id,
      ftsDocument(entity.name),
      ftsDocument(entity.aliases.join(' \n ')),
      ftsDocument(entity.summary ?? ''),
    );
  }

  /**
   * Removes chunks and what exists only because of them (see deleteDocument). Must run inside a
   * transaction.
   */
  #removeChunks(chunkIds: number[]): RemovalResult {
    const chunks = JSON.stringify(chunkIds);
    const supported = this.#stmt(
      'SELECT DISTINCT triple_id FROM triple_chunks WHERE chunk_id IN (SELECT value FROM json_each(?))',
    )
      .pluck()
      .all(chunks) as number[];
    const doomed = this.#stmt(
      `SELECT s.value FROM json_each(:supported) s WHERE NOT EXISTS (
         SELECT 1 FROM triple_chunks tc WHERE tc.triple_id = s.value AND tc.chunk_id NOT IN (SELECT value FROM json_each(:chunks)))`,
    )
      .pluck()
      .all({ supported: JSON.stringify(supported), chunks }) as number[];
    const touched = this.#stmt(
      `SELECT source_id FROM triples WHERE id IN (SELECT value FROM json_each(:ids)) UNION SELECT target_id FROM triples WHERE id IN (SELECT value FROM json_each(:ids))`,
    )
      .pluck()
      .all({ ids: JSON.stringify(supported) }) as number[];
    this.#deleteTriples(doomed);
    this.#deleteVectorRows('chunk', chunkIds);
    this.#deleteVectorRows('chunk_original', chunkIds);
    this.removeText('chunk', chunkIds);
    this.removeText('chunk_original', chunkIds);
    this.#stmt('DELETE FROM chunks WHERE id IN (SELECT value FROM json_each(?))').run(chunks);
    const orphans = this.#stmt(
      `SELECT e.value FROM json_each(?) e WHERE NOT EXISTS (SELECT 1 FROM triples WHERE source_id = e.value)
         AND NOT EXISTS (SELECT 1 FROM triples WHERE target_id = e.value)`,
    )
      .pluck()
      .all(JSON.stringify(touched)) as number[];
    this.#deleteEntities(orphans);
    const survivors = touched.filter((id) => !orphans.includes(id)).sort((a, b) => a - b);
    this.#stmt('UPDATE entities SET summary_stale = 1 WHERE id IN (SELECT value FROM json_each(?))').run(
      JSON.stringify(survivors),
    );
    return {
      touchedEntityIds: survivors,
      removedEntityIds: orphans.sort((a, b) => a - b),
      removedTripleIds: doomed.sort((a, b) => a - b),
      removedChunkIds: chunkIds,
    };
  }

  /** Removes a document's passages with their vectors. Must run inside a transaction. */
  #removePassages(documentId: number): void {
    this.#contentGeneration++;
    this.#deleteVectorRows(
      'passage',
      this.#stmt('SELECT id FROM passages WHERE document_id = ?').pluck().all(documentId) as number[],
    );
    this.#stmt('DELETE FROM passages WHERE document_id = ?').run(documentId);
  }

  #deleteTriples(ids: number[]): void {
    if (ids.length === 0) return;
    this.#contentGeneration++;
    this.#deleteVectorRows('triple', ids);
    this.removeText('triple', ids);
    this.#stmt('DELETE FROM triples WHERE id IN (SELECT value FROM json_each(?))').run(JSON.stringify(ids));
  }

  /** Deletes entities that no triple references, with their vectors and FTS rows (aliases cascade). */
  #deleteEntities(ids: number[]): void {
    if (ids.length === 0) return;
    this.#contentGeneration++;
    this.#deleteVectorRows('entity_name', ids);
    this.#deleteVectorRows('entity_summary', ids);
    const json = JSON.stringify(ids);
    this.#stmt('DELETE FROM fts_entity WHERE rowid IN (SELECT value FROM json_each(?))').run(json);
    this.#stmt('DELETE FROM entities WHERE id IN (SELECT value FROM json_each(?))').run(json);
  }

  #deleteVectorRows(kind: VectorKind, ids: readonly number[]): void {
    if (ids.length === 0) return;
    const index = this.#currentIndex(kind);
    const json = JSON.stringify(ids);
    this.#stmt(`DELETE FROM vec_${kind} WHERE id IN (SELECT value FROM json_each(?))`).run(json);
    this.#stmt(`DELETE FROM vcode_${kind} WHERE id IN (SELECT value FROM json_each(?))`).run(json);
    const generation = this.#bumpGeneration(kind);
    if (index) {
      for (const id of ids) index.delete(id);
      index.generation = generation;
    }
  }

  /** Every vector write bumps its kind's generation, so other connections' in-memory indexes notice. */
  #bumpGeneration(kind: VectorKind): number {
    return this.#stmt('UPDATE vector_state SET generation = generation + 1 WHERE kind = ? RETURNING generation')
      .pluck()
      .get(kind) as number;
  }

  #generation(kind: VectorKind): number {
    return this.#stmt('SELECT generation FROM vector_state WHERE kind = ?').pluck().get(kind) as number;
  }

  /** The loaded index of `kind` if it reflects the stored rows (so writes can update it in place); else drops it. */
  #currentIndex(kind: VectorKind): BinaryIndex | undefined {
    const index = this.#binary.get(kind);
    if (index && index.generation === this.#generation(kind)) return index;
    this.#binary.delete(kind);
    return undefined;
  }

  #loadedIndex(kind: VectorKind, dimension: number): BinaryIndex {
    const current = this.#currentIndex(kind);
    if (current && current.words === Math.ceil(dimension / 32)) return current;
    const index = new BinaryIndex(dimension, this.#generation(kind));
    // Codes come concatenated by SQLite, a page of ids per round trip: reading them row by row cost
    // ~6 µs a row in better-sqlite3 (6.2 s for the first search at 1M vectors). Both aggregates
    // read the same ordered rows, so ids and codes line up.
    const page = this.#stmt(
      `SELECT unhex(group_concat(hex(code), '')) AS codes, json_group_array(id) AS ids, max(id) AS last, COUNT(*) AS count
       FROM (SELECT id, code FROM vcode_${kind} WHERE id > ? ORDER BY id LIMIT ${CODE_PAGE_ROWS})`,
    );
    for (let after = 0; ;) {
      const { codes, ids, last, count } = page.get(after) as {
        codes: Buffer | null;
        ids: string;
        last: number | null;
        count: number;
      };
      if (count === 0 || codes === null || last === null) break;
      index.append(JSON.parse(ids) as number[], codes);
      if (count < CODE_PAGE_ROWS) break;
      after = last;
    }
    this.#binary.set(kind, index);
    return index;
  }
}

/** FROM and WHERE of the `kind` rows without a vector (summary vectors exist only for entities with a summary, original-language ones only for non-English chunks). */
function missingVectorsFrom(kind: VectorKind): string {
  const extra =
    kind === 'entity_summary'
      ? 'AND o.summary IS NOT NULL'
      : kind === 'chunk_original'
        ? `AND ${sqlNotEnglish('o.language')}`
        : '';
  return `FROM ${vectorOwner(kind)} o WHERE NOT EXISTS (SELECT 1 FROM vec_${kind} v WHERE v.id = o.id) ${extra}`;
}

function vectorOwner(kind: VectorKind): string {
  const owner = VECTOR_OWNERS[kind];
  if (!owner) throw new PolyhopError('BAD_INPUT', `Unknown vector kind "${String(kind)}"`);
  return owner;
}

function entityFilter(options: { stale?: boolean; type?: string }): { where: string; params: Record<string, unknown> } {
  const clauses: string[] = [];
  const params: Record<string, unknown> = {};
  if (options.stale !== undefined) {
    clauses.push('e.summary_stale = :stale');
    params.stale = options.stale ? 1 : 0;
  }
  if (options.type !== undefined) {
    clauses.push('e.type = :type');
    params.type = options.type;
  }
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

function toEntity(row: EntityRow): EntityRecord {
  return { ...row, summaryStale: row.summaryStale === 1, aliases: (JSON.parse(row.aliases) as string[]).sort() };
}

function toTriple(row: TripleRow): TripleRecord {
  return { ...row, chunkIds: JSON.parse(row.chunkIds) as number[] };
}

function toPassage(row: PassageRow): PassageRecord {
  return { ...row, chunkIds: JSON.parse(row.chunkIds) as number[] };
}

function inOrder<R extends { id: number }>(ids: readonly number[], rows: R[]): R[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** A unit-length copy, or null for a zero or non-finite vector. */
function normalised(vector: Float32Array): Float32Array | null {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += (vector[i] as number) * (vector[i] as number);
  const norm = Math.sqrt(sum);
  if (!Number.isFinite(norm) || norm === 0) return null;
  const out = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) out[i] = (vector[i] as number) / norm;
  return out;
}

function bytesOf(array: Float32Array | Uint32Array): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}

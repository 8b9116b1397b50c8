import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database as Db, Statement } from 'better-sqlite3';
import { StatementCache } from './utils/StatementCache.js';
import { PolyhopError } from '../base/errors.js';
import { LATEST_SCHEMA_VERSION, assertSupportedVersion, migrate, schemaVersion } from './migrations/migrate.js';
import { AnswerGraphRepository } from './AnswerGraphRepository.js';
import { HistoryRepository } from './HistoryRepository.js';
import { ImportedStatementsRepository } from './ImportedStatementsRepository.js';
import { JobStateRepository } from './JobStateRepository.js';
import { PartialSummaryRepository } from './PartialSummaryRepository.js';
import { TextIndexRepository } from './TextIndexRepository.js';
import { ThreadRepository } from './ThreadRepository.js';
import { DocumentRepository } from './DocumentRepository.js';
import { DocumentOcrRepository } from './DocumentOcrRepository.js';
import { DocumentPageRepository } from './DocumentPageRepository.js';
import { GraphRepository } from './GraphRepository.js';
import { MetaRepository } from './MetaRepository.js';
import { VectorIndexRepository } from './VectorIndexRepository.js';
import type { RepositoryContext } from './RepositoryContext.js';
import { backupKb, openDatabase, notAKb, readKbMeta, verifyKbFile } from './KbFile.js';
import { StoreJournal } from './store/StoreJournal.js';
import { checkBaseIri } from './utils/baseIri.js';
import type { KbMeta, KbStats } from './types.js';

export interface KnowledgeBaseOptions {
  /** Create the file with this meta when it does not exist. Default: undefined (a missing file is NOT_FOUND). */
  create?: { name: string; description?: string; baseIri: string };
  /** Open read-only (no migrations, no writes; the file must be at the current schema). Default: false. */
  readonly?: boolean;
  /** How long a statement waits for another connection's write lock, in ms. Default: 5000. */
  busyTimeoutMs?: number;
}

export type { KnnOptions } from './VectorIndexRepository.js';
export type { ImportedRecords } from './GraphRepository.js';
export type { ListEntitiesOptions } from './GraphReader.js';
export type { IterateOptions } from './utils/rows.js';

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
  /** Conversations whose turns link to history entries (ThreadRepository.ts). */
  readonly threads: ThreadRepository;
  /** Each answer's RDF graph, the documents it cites, its staleness (AnswerGraphRepository.ts). */
  readonly answers: AnswerGraphRepository;
  /** Hub entities' partial summaries (PartialSummaryRepository.ts). */
  readonly partialSummaries: PartialSummaryRepository;
  /** FTS5 indexes and BM25 (TextIndexRepository.ts). */
  readonly textIndex: TextIndexRepository;
  /** An imported graph's original N-Quads (ImportedStatementsRepository.ts). */
  readonly importedStatements: ImportedStatementsRepository;
  /** Documents, chunks and passages (DocumentRepository.ts). */
  readonly documents: DocumentRepository;
  /** Paged documents' pages as indexed (DocumentPageRepository.ts). */
  readonly pages: DocumentPageRepository;
  /** Which pages of each document were read by OCR, how sure it was (DocumentOcrRepository.ts). */
  readonly ocr: DocumentOcrRepository;
  /** Entities, aliases, merges and triples (GraphRepository.ts; its reads in GraphReader.ts). */
  readonly graph: GraphRepository;
  /** Meta and settings (MetaRepository.ts). */
  readonly metadata: MetaRepository;
  /** The embedder record, vectors and the sign-bit index (VectorIndexRepository.ts). */
  readonly vectors: VectorIndexRepository;
  /** The change journal and sync state of this KB's external SPARQL store (kb/store/StoreJournal.ts). */
  readonly storeJournal: StoreJournal;

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
      name: () => this.metadata.meta().name,
    };
    this.metadata = new MetaRepository(context);
    this.vectors = new VectorIndexRepository(context, this.metadata);
    this.jobState = new JobStateRepository(context);
    this.history = new HistoryRepository(context);
    this.threads = new ThreadRepository(context);
    this.answers = new AnswerGraphRepository(context);
    this.textIndex = new TextIndexRepository(context);
    this.importedStatements = new ImportedStatementsRepository(context);
    this.partialSummaries = new PartialSummaryRepository(context, this.vectors);
    this.graph = new GraphRepository(context, this.vectors, this.textIndex, this.partialSummaries);
    this.documents = new DocumentRepository(context, this.graph, this.vectors, this.textIndex);
    this.pages = new DocumentPageRepository(context);
    this.ocr = new DocumentOcrRepository(context);
    this.storeJournal = new StoreJournal(context);
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

  // ── imported RDF ────────────────────────────────────────────────────────────

  /**
   * Removes every entity, triple and imported statement, with their vectors and text index, from a
   * KB that holds no documents: undoes an RDF import that could not finish.
   */
  clearGraph(): void {
    if (this.stats().documents > 0)
      throw new PolyhopError('CONFLICT', 'clearGraph: the knowledge base holds documents');
    // Whole tables, set-based: an import of millions of statements undoes without listing their ids.
    this.transaction(() => {
      this.vectors.clearKinds(['triple', 'entity_name', 'entity_summary', 'entity_partial']);
      this.graph.clear();
      this.importedStatements.clear();
    });
  }

  // ── streaming and stats ─────────────────────────────────────────────────────

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

  #notFound(what: string, id: number): PolyhopError {
    return new PolyhopError('NOT_FOUND', `No ${what} ${id} in knowledge base "${this.metadata.meta().name}"`, {
      details: { what, id },
    });
  }
}

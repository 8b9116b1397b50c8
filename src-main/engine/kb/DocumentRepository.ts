import { PolyhopError } from '../base/errors.js';
import type { GraphRepository } from './GraphRepository.js';
import type { RepositoryContext } from './RepositoryContext.js';
import type { TextIndexRepository } from './TextIndexRepository.js';
import type { VectorIndexRepository } from './VectorIndexRepository.js';
import { inOrder, paged } from './utils/rows.js';
import type { IterateOptions } from './utils/rows.js';
import type {
  ChunkNeighbours,
  ChunkRecord,
  ChunkUpdate,
  DocumentList,
  DocumentRecord,
  DocumentSortKey,
  DocumentStatus,
  DocumentUpdate,
  ListDocumentsOptions,
  NewChunk,
  NewDocument,
  PassageRecord,
  RemovalResult,
} from './types.js';

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
  chunk_count AS chunkCount, triple_count AS tripleCount, added_at AS addedAt, container_id AS containerId`;
const CHUNK_COLUMNS = `id, document_id AS documentId, ord, text, language, start_offset AS startOffset,
  end_offset AS endOffset, page, summary, english_text AS englishText`;
const PASSAGE_COLUMNS = `p.id, p.document_id AS documentId, p.ord, p.text, p.start_offset AS startOffset, p.end_offset AS endOffset, p.page,
  (SELECT json_group_array(c.id) FROM (SELECT id FROM chunks WHERE document_id = p.document_id AND start_offset < p.end_offset
     AND end_offset > p.start_offset ORDER BY ord) c) AS chunkIds`;
type PassageRow = Omit<PassageRecord, 'chunkIds'> & { chunkIds: string };

/**
 * Documents, their chunks (MDER's units, with summaries and English text) and passages (the
 * vector baseline's units). Removing a document or replacing its chunks removes what exists only
 * because of them, across the graph, vector and text index repositories.
 */
export class DocumentRepository {
  readonly #context: RepositoryContext;
  readonly #graph: GraphRepository;
  readonly #vectors: VectorIndexRepository;
  readonly #textIndex: TextIndexRepository;

  constructor(
    context: RepositoryContext,
    graph: GraphRepository,
    vectors: VectorIndexRepository,
    textIndex: TextIndexRepository,
  ) {
    this.#context = context;
    this.#graph = graph;
    this.#vectors = vectors;
    this.#textIndex = textIndex;
  }

  /** Throws ALREADY_EXISTS when a document has the same path. */
  addDocument(doc: NewDocument): DocumentRecord {
    if (this.findDocumentByPath(doc.path)) {
      throw new PolyhopError('ALREADY_EXISTS', `${doc.path} is already in knowledge base "${this.#context.name()}"`, {
        details: { path: doc.path },
      });
    }
    const id = this.#stmt(
      `INSERT INTO documents (path, title, hash, mime, size, language, status, added_at, container_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
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
        doc.containerId ?? null,
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

  /**
   * One page of documents; `filter` matches title or path (case-insensitive for ASCII letters);
   * `grouped` lists parts under their file only, `containerId` one file's parts.
   */
  listDocuments(options: ListDocumentsOptions = {}): DocumentList {
    const { offset = 0, limit = 200, sort = 'addedAt', descending = false, filter = '', grouped = false } = options;
    const order = DOCUMENT_SORT[sort];
    if (!order) throw new PolyhopError('BAD_INPUT', `Cannot sort documents by "${String(sort)}"`);
    const direction = descending ? 'DESC' : 'ASC';
    const matches = (table: string) =>
      `(${table}.title LIKE :pattern ESCAPE '\\' OR ${table}.path LIKE :pattern ESCAPE '\\')`;
    const conditions = [
      ...(options.containerId !== undefined ? ['d.container_id = :containerId'] : []),
      ...(grouped ? ['d.container_id IS NULL'] : []),
      ...(filter
        ? [
            grouped
              ? `(${matches('d')} OR EXISTS (SELECT 1 FROM documents p WHERE p.container_id = d.id AND ${matches('p')}))`
              : matches('d'),
          ]
        : []),
    ];
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    const params = {
      ...(filter ? { pattern: `%${filter.replace(/[\\%_]/g, (c) => `\\${c}`)}%` } : {}),
      ...(options.containerId !== undefined ? { containerId: options.containerId } : {}),
    };
    const total = this.#stmt(`SELECT COUNT(*) FROM documents d ${where}`).pluck().get(params) as number;
    const rows = this.#stmt(
      `SELECT ${DOCUMENT_COLUMNS}, (SELECT COUNT(*) FROM documents p WHERE p.container_id = d.id) AS partCount
       FROM documents d ${where} ORDER BY ${order} ${direction}, id ${direction} LIMIT :limit OFFSET :offset`,
    ).all({ ...params, limit, offset }) as DocumentList['rows'];
    return { total, rows };
  }

  setDocumentStatus(id: number, status: DocumentStatus, error: string | null = null): void {
    const changes = this.#stmt('UPDATE documents SET status = ?, error = ? WHERE id = ?').run(
      status,
      error,
      id,
    ).changes;
    if (changes === 0) throw this.#context.notFound('document', id);
  }

  /** A new path moves the document's parts with it (`old#part` becomes `new#part`). */
  updateDocument(id: number, update: DocumentUpdate): DocumentRecord {
    const current = this.#requireDocument(id);
    const next = { ...current, ...update };
    if (next.path !== current.path)
      this.#stmt('UPDATE documents SET path = ? || substr(path, ?) WHERE container_id = ?').run(
        next.path,
        current.path.length + 1,
        id,
      );
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
    return this.#context.transaction(() => {
      this.#requireDocument(id);
      const ids = [...this.partsOf(id).map((part) => part.id), id];
      for (const documentId of ids) this.#removePassages(documentId);
      const result = this.#removeChunks(ids.flatMap((documentId) => this.#chunkIdsOf(documentId)));
      for (const documentId of ids) this.#stmt('DELETE FROM documents WHERE id = ?').run(documentId);
      return result;
    });
  }

  /** The parts of a container document (an MBOX's messages, an e-mail's attachments), by id; none for most documents. */
  partsOf(containerId: number): DocumentRecord[] {
    return this.#stmt(`SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE container_id = ? ORDER BY id`).all(
      containerId,
    ) as DocumentRecord[];
  }

  /** Languages the documents are written in, most documents first (a hint for short questions' language). */
  documentLanguages(): string[] {
    return this.#stmt(
      "SELECT language FROM documents WHERE language IS NOT NULL AND language <> 'und' GROUP BY language ORDER BY COUNT(*) DESC, language",
    )
      .pluck()
      .all() as string[];
  }

  /** Replaces all chunks of a document; what hung off the old ones goes as in {@link deleteDocument}. */
  replaceChunks(documentId: number, chunks: readonly NewChunk[]): ChunkRecord[] {
    return this.#context.transaction(() => {
      this.#requireDocument(documentId);
      this.#context.touch();
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
    if (!current) throw this.#context.notFound('chunk', id);
    this.#stmt('UPDATE chunks SET summary = ?, english_text = ? WHERE id = ?').run(
      update.summary === undefined ? current.summary : update.summary,
      update.englishText === undefined ? current.englishText : update.englishText,
      id,
    );
  }

  /** The chunks just before and after `chunkId` in its document (MDER's ±1 context). */
  neighbours(chunkId: number): ChunkNeighbours {
    const chunk = this.getChunk(chunkId);
    if (!chunk) throw this.#context.notFound('chunk', chunkId);
    const previous = this.#stmt(
      `SELECT ${CHUNK_COLUMNS} FROM chunks WHERE document_id = ? AND ord < ? ORDER BY ord DESC LIMIT 1`,
    ).get(chunk.documentId, chunk.ord);
    const next = this.#stmt(
      `SELECT ${CHUNK_COLUMNS} FROM chunks WHERE document_id = ? AND ord > ? ORDER BY ord LIMIT 1`,
    ).get(chunk.documentId, chunk.ord);
    return { previous: (previous as ChunkRecord | undefined) ?? null, next: (next as ChunkRecord | undefined) ?? null };
  }

  /** Replaces all passages of a document (their vectors go with them); returns the new ones in order. */
  replacePassages(documentId: number, passages: readonly NewChunk[]): PassageRecord[] {
    return this.#context.transaction(() => {
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
    return this.#context.derive(
      'documentsWithoutPassages',
      () =>
        this.#stmt(
          'SELECT COUNT(*) FROM documents d WHERE d.chunk_count > 0 AND NOT EXISTS (SELECT 1 FROM passages p WHERE p.document_id = d.id)',
        )
          .pluck()
          .get() as number,
    );
  }

  /** Every document, by id, fetched in batches (other calls may run between two items). */
  *iterateDocuments(options: Omit<IterateOptions, 'documentId'> = {}): Generator<DocumentRecord> {
    yield* paged<DocumentRecord>(
      this.#context.statements,
      `SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE id > :after ORDER BY id LIMIT :limit`,
      {},
      options.batchSize,
    );
  }

  /** Every chunk (or one document's), by id. */
  *iterateChunks(options: IterateOptions = {}): Generator<ChunkRecord> {
    const byDocument = options.documentId === undefined ? '' : 'AND document_id = :documentId';
    const params = options.documentId === undefined ? {} : { documentId: options.documentId };
    yield* paged<ChunkRecord>(
      this.#context.statements,
      `SELECT ${CHUNK_COLUMNS} FROM chunks WHERE id > :after ${byDocument} ORDER BY id LIMIT :limit`,
      params,
      options.batchSize,
    );
  }

  #requireDocument(id: number): DocumentRecord {
    return this.getDocument(id) ?? this.#throwNotFound('document', id);
  }

  #chunkIdsOf(documentId: number): number[] {
    return this.#stmt('SELECT id FROM chunks WHERE document_id = ?').pluck().all(documentId) as number[];
  }

  /**
   * Removes chunks and what exists only because of them (see deleteDocument). Must run inside a
   * transaction.
   */
  #removeChunks(chunkIds: number[]): RemovalResult {
    const { removedTripleIds, touchedEntityIds: touched } = this.#graph.removeTriplesOnlyFrom(chunkIds);
    this.#vectors.deleteRows('chunk', chunkIds);
    this.#vectors.deleteRows('chunk_original', chunkIds);
    this.#textIndex.removeText('chunk', chunkIds);
    this.#textIndex.removeText('chunk_original', chunkIds);
    this.#stmt('DELETE FROM chunks WHERE id IN (SELECT value FROM json_each(?))').run(JSON.stringify(chunkIds));
    const { removedEntityIds, touchedEntityIds } = this.#graph.removeOrphans(touched);
    return {
      touchedEntityIds,
      removedEntityIds,
      removedTripleIds: removedTripleIds.sort((a, b) => a - b),
      removedChunkIds: chunkIds,
    };
  }

  /** Removes a document's passages with their vectors. Must run inside a transaction. */
  #removePassages(documentId: number): void {
    this.#context.touch();
    this.#vectors.deleteRows(
      'passage',
      this.#stmt('SELECT id FROM passages WHERE document_id = ?').pluck().all(documentId) as number[],
    );
    this.#stmt('DELETE FROM passages WHERE document_id = ?').run(documentId);
  }

  #stmt(sql: string) {
    return this.#context.statements.get(sql);
  }

  #throwNotFound(what: string, id: number): never {
    throw this.#context.notFound(what, id);
  }
}

function toPassage(row: PassageRow): PassageRecord {
  return { ...row, chunkIds: JSON.parse(row.chunkIds) as number[] };
}

import type { RepositoryContext } from './RepositoryContext.js';

/** One page of a paged document as indexed: its text is the document's text `[startOffset, endOffset)`. */
export interface DocumentPageRecord {
  /** 1-based page number. */
  page: number;
  startOffset: number;
  endOffset: number;
  text: string;
}

/** The pages of paged documents (document_pages, schema v16), written with their chunks at indexing. */
export class DocumentPageRepository {
  readonly #context: RepositoryContext;

  constructor(context: RepositoryContext) {
    this.#context = context;
  }

  /** Replaces the document's pages (none: a document without pages). */
  replace(documentId: number, pages: readonly DocumentPageRecord[]): void {
    this.#context.transaction(() => {
      this.#context.statements.get('DELETE FROM document_pages WHERE document_id = ?').run(documentId);
      const insert = this.#context.statements.get(
        'INSERT INTO document_pages (document_id, page, start_offset, end_offset, text) VALUES (?, ?, ?, ?, ?)',
      );
      for (const p of pages) insert.run(documentId, p.page, p.startOffset, p.endOffset, p.text);
    });
  }

  /** Where each page starts, in page order; empty for a document indexed without pages (or before v16). */
  startsOf(documentId: number): { page: number; startOffset: number }[] {
    return this.#context.statements
      .get('SELECT page, start_offset AS startOffset FROM document_pages WHERE document_id = ? ORDER BY page')
      .all(documentId) as { page: number; startOffset: number }[];
  }

  /**
   * Ids after `after`, in order, of documents in a paged format (PDF, TIFF) that have indexed text
   * but no kept pages: indexed before v16, so their citations read the file again until the
   * upgrade job keeps their pages.
   */
  missing(after = 0, limit = 100): number[] {
    return this.#context.statements
      .get(
        `SELECT d.id FROM documents d WHERE d.id > ? AND d.mime IN ('application/pdf', 'image/tiff')
           AND EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = d.id)
           AND NOT EXISTS (SELECT 1 FROM document_pages p WHERE p.document_id = d.id)
         ORDER BY d.id LIMIT ?`,
      )
      .pluck()
      .all(after, limit) as number[];
  }

  /** One page with its text, or undefined. */
  get(documentId: number, page: number): DocumentPageRecord | undefined {
    return this.#context.statements
      .get(
        'SELECT page, start_offset AS startOffset, end_offset AS endOffset, text FROM document_pages WHERE document_id = ? AND page = ?',
      )
      .get(documentId, page) as DocumentPageRecord | undefined;
  }
}

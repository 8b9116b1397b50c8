import type { RepositoryContext } from './RepositoryContext.js';
import type { OcrRecord } from './views.js';

/** Which pages of each document were read by OCR (document_ocr and document_ocr_pages, schema v18), written at indexing. */
export class DocumentOcrRepository {
  readonly #context: RepositoryContext;

  constructor(context: RepositoryContext) {
    this.#context = context;
  }

  /** Replaces the document's record; undefined (or no pages): the document has none. */
  replace(documentId: number, record: OcrRecord | undefined): void {
    const { statements } = this.#context;
    this.#context.transaction(() => {
      // The pages go with their record (ON DELETE CASCADE).
      statements.get('DELETE FROM document_ocr WHERE document_id = ?').run(documentId);
      if (!record || record.pages.length === 0) return;
      statements
        .get('INSERT INTO document_ocr (document_id, languages) VALUES (?, ?)')
        .run(documentId, record.languages.join('+'));
      const insert = statements.get(
        'INSERT INTO document_ocr_pages (document_id, page, confidence, reason) VALUES (?, ?, ?, ?)',
      );
      for (const p of record.pages) insert.run(documentId, p.page, Math.round(p.confidence), p.reason);
    });
  }

  /** The document's record, pages in order; undefined when no page of it was read by OCR. */
  get(documentId: number): OcrRecord | undefined {
    const { statements } = this.#context;
    const languages = statements
      .get('SELECT languages FROM document_ocr WHERE document_id = ?')
      .pluck()
      .get(documentId) as string | undefined;
    if (languages === undefined) return undefined;
    const pages = statements
      .get('SELECT page, confidence, reason FROM document_ocr_pages WHERE document_id = ? ORDER BY page')
      .all(documentId) as OcrRecord['pages'];
    return { languages: languages.split('+'), pages };
  }
}

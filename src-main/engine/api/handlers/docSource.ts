import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { PolyhopError } from '../../base/errors.js';
import { badInput } from '../../ingest/badInput.js';
import { readFileGuarded } from '../../ingest/load/readFileGuarded.js';
import { pageAt } from '../../ingest/chunk/chunkRecord.js';
import { pageTexts } from '../../ingest/pageTexts.js';
import type { LoadedDocument, LoadedText } from '../../ingest/types.js';
import type { KnowledgeBase } from '../../kb/KnowledgeBase.js';
import type { DocumentRecord } from '../../kb/types.js';
import type { DocumentPageText, DocumentSource } from '../contract.js';
import type { Handlers } from '../dispatch.js';
import type { Engine } from '../Engine.js';
import { FileStatCache } from '../FileStatCache.js';
import { toRow } from '../documentChanges.js';
import { loadFileAgain, readPartAgain, readTextAgain, requireDocument } from '../readDocumentAgain.js';

type SourceMethods = 'docs:source' | 'docs:page' | 'docs:file';

/** The largest file `docs:file` hands over (a PDF's pages are drawn from it in the renderer). */
export const MAX_DOCUMENT_FILE_BYTES = 64 * 1024 ** 2;

/**
 * Citations opened at their source: the cited page as indexed (`docs:page`), a document's text as
 * the indexing loader reads it again (`docs:source`, and `docs:page` for documents indexed before
 * their pages were kept) and a PDF's own bytes (`docs:file`; a mail's PDF attachment's too), so that the renderer draws the cited
 * page without any file access of its own. Both are kept per file (and sha256) while the file is
 * unchanged, so that a second citation into the same file is not read (or OCR'd) again.
 */
export function docSourceHandlers(engine: Engine): Pick<Handlers, SourceMethods> {
  const { kbs } = engine;
  const loaded = new FileStatCache<LoadedDocument>();
  const files = new FileStatCache<{ base64: string; size: number }>();

  const load = (file: DocumentRecord): Promise<LoadedDocument> =>
    loaded.get(
      file.path,
      file.hash,
      () => loadFileAgain(engine.settings.get(), file),
      (d) => 2 * (d.text.length + (d.parts ?? []).reduce((n, p) => n + (p.loaded?.text.length ?? 0), 0)),
    );

  const readAgain = (kb: KnowledgeBase, document: DocumentRecord): Promise<LoadedText> =>
    readTextAgain(kb, document, load);

  /** A mail's PDF attachment, its bytes taken from its file read again (the indexed version only). */
  const attachedPdf = async (kb: KnowledgeBase, part: DocumentRecord & { containerId: number }) => {
    const { bytes } = await readPartAgain(kb, part, (file) =>
      loadFileAgain(engine.settings.get(), file, { keepPdfPartBytes: true }),
    );
    if (!bytes) throw badInput(part.path, 'this attachment is no longer a PDF');
    if (bytes.byteLength > MAX_DOCUMENT_FILE_BYTES) throw badInput(part.path, 'the attachment is too large to show');
    return {
      base64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
      size: bytes.byteLength,
    };
  };

  return {
    'docs:source': async ({ kb: name, id }) => {
      const { kb } = kbs.get(name);
      const document = requireIndexed(kb.documents.getDocument(id), id);
      const text = await readAgain(kb, document);
      return {
        document: toRow(document),
        text: text.text,
        pages: text.pages?.map((p) => ({ page: p.page, startOffset: p.startOffset })) ?? null,
      } satisfies DocumentSource;
    },
    'docs:page': async ({ kb: name, id, startOffset, endOffset }) => {
      const { kb } = kbs.get(name);
      const document = requireIndexed(kb.documents.getDocument(id), id);
      // The page as indexed (schema v16); a document indexed before has none kept, and is read again.
      const starts = kb.pages.startsOf(id);
      const number = pageAt(starts, startOffset);
      const kept = number === null ? undefined : kb.pages.get(id, number);
      if (kept) return onPage(document, kept, startOffset, endOffset, 'index');
      const text = await readAgain(kb, document);
      const pages = pageTexts(text);
      const page = pages.find((p) => p.page === pageAt(pages, startOffset)) ?? {
        page: null,
        startOffset: 0,
        endOffset: text.text.length,
        text: text.text,
      };
      return onPage(document, page, startOffset, endOffset, 'file');
    },
    'docs:file': async ({ kb: name, id }) => {
      const { kb } = kbs.get(name);
      const document = requireDocument(kb.documents.getDocument(id), id);
      if (document.mime !== 'application/pdf')
        throw new PolyhopError('UNSUPPORTED', `Document ${id} is not a PDF`, { details: { id, mime: document.mime } });
      const { containerId } = document;
      // A part is kept under its file's path, so that the file's own stat says whether it changed.
      const file = containerId === null ? document : requireDocument(kb.documents.getDocument(containerId), id);
      const { base64, size } = await files.get(
        file.path,
        document.hash,
        async () => {
          if (containerId !== null) return attachedPdf(kb, { ...document, containerId });
          const read = await readFileGuarded(document.path, { maxBytes: MAX_DOCUMENT_FILE_BYTES });
          if (read.sha256 !== document.hash) throw badInput(document.path, 'file changed since it was scanned');
          return { base64: read.bytes.toString('base64'), size: read.size };
        },
        (f) => f.base64.length,
        document.path,
      );
      return { mime: document.mime, size, base64 };
    },
  };
}

/**
 * The file a KB document was read from (a mail part's: its container's), for the desktop window's
 * "Open in system viewer": NOT_FOUND for a document that is not a file on disk (RDF, datasets).
 */
export async function documentFilePath(engine: Engine, kbName: string, id: number): Promise<string> {
  const { kb } = engine.kbs.get(kbName);
  const document = requireDocument(kb.documents.getDocument(id), id);
  const file =
    document.containerId === null ? document : requireDocument(kb.documents.getDocument(document.containerId), id);
  if (
    !isAbsolute(file.path) ||
    !(await stat(file.path).then(
      (s) => s.isFile(),
      () => false,
    ))
  )
    throw new PolyhopError('NOT_FOUND', `Document ${id} is not a file on this machine`, { details: { id } });
  return file.path;
}

/** The passage `[start, end)` of the document's text as offsets into `page`'s text, cut at its end. */
function onPage(
  document: DocumentRecord,
  page: { page: number | null; startOffset: number; endOffset: number; text: string },
  start: number,
  end: number,
  readFrom: DocumentPageText['readFrom'],
): DocumentPageText {
  const clip = (offset: number) => Math.min(Math.max(offset, page.startOffset), page.endOffset) - page.startOffset;
  return {
    document: toRow(document),
    page: page.page,
    startOffset: page.startOffset,
    endOffset: page.endOffset,
    text: page.text,
    passage: { start: clip(start), end: clip(end) },
    continues: end > page.endOffset,
    readFrom,
  };
}

/** The document, NOT_FOUND while it has no indexed text (citations' offsets point into that text). */
function requireIndexed(document: DocumentRecord | undefined | null, id: number): DocumentRecord {
  const found = requireDocument(document, id);
  if (!found.chunkCount) throw new PolyhopError('NOT_FOUND', `Document ${id} has no indexed text`, { details: { id } });
  return found;
}

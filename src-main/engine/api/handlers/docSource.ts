import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { PolyhopError } from '../../base/errors.js';
import { badInput } from '../../ingest/badInput.js';
import { DocumentLoader } from '../../ingest/load/DocumentLoader.js';
import { readFileGuarded } from '../../ingest/load/readFileGuarded.js';
import type { LoadedDocument } from '../../ingest/types.js';
import type { DocumentRecord } from '../../kb/types.js';
import type { DocumentSource } from '../contract.js';
import type { Handlers } from '../dispatch.js';
import type { Engine } from '../Engine.js';
import { FileStatCache } from '../FileStatCache.js';
import { toRow } from '../documentChanges.js';
import { documentLimitOptions } from './indexing.js';

type SourceMethods = 'docs:source' | 'docs:file';

/** The largest file `docs:file` hands over (a PDF's pages are drawn from it in the renderer). */
export const MAX_DOCUMENT_FILE_BYTES = 64 * 1024 ** 2;

/**
 * Citations opened at their source: a document's text as the indexing loader reads it again
 * (`docs:source`) and a PDF's own bytes (`docs:file`), so that the renderer draws the cited page
 * without any file access of its own. Both are kept per file (and sha256) while the file is
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
      async () => {
        // The file is read by the indexing loader with the same limits and options, and must be
        // the bytes that were indexed (else BAD_INPUT "file changed").
        const settings = engine.settings.get();
        const { limits, load } = documentLimitOptions(settings.documentLimits, settings.ocrLanguages);
        const loader = new DocumentLoader(limits);
        try {
          return await loader.load(file.path, { ...load, expectedSha256: file.hash });
        } finally {
          await loader.dispose();
        }
      },
      (d) => 2 * (d.text.length + (d.parts ?? []).reduce((n, p) => n + (p.loaded?.text.length ?? 0), 0)),
    );

  return {
    'docs:source': async ({ kb: name, id }) => {
      const { kb } = kbs.get(name);
      const document = requireDocument(kb.getDocument(id), id);
      if (!document.chunkCount)
        throw new PolyhopError('NOT_FOUND', `Document ${id} has no indexed text`, { details: { id } });
      // A part (an MBOX's message, an e-mail's attachment) is found in its file, read again whole.
      const file = document.containerId === null ? document : requireDocument(kb.getDocument(document.containerId), id);
      const whole = await load(file);
      const text =
        document.containerId === null
          ? whole
          : whole.parts?.find((p) => `${file.path}#${p.partId}` === document.path)?.loaded;
      if (!text) throw badInput(document.path, 'this part is no longer in its file');
      return {
        document: toRow(document),
        text: text.text,
        pages: text.pages?.map((p) => ({ page: p.page, startOffset: p.startOffset })) ?? null,
      } satisfies DocumentSource;
    },
    'docs:file': async ({ kb: name, id }) => {
      const document = requireDocument(kbs.get(name).kb.getDocument(id), id);
      if (document.mime !== 'application/pdf' || document.containerId !== null)
        throw new PolyhopError('UNSUPPORTED', `Document ${id} is not a PDF file of its own`, {
          details: { id, mime: document.mime },
        });
      const { base64, size } = await files.get(
        document.path,
        document.hash,
        async () => {
          const read = await readFileGuarded(document.path, { maxBytes: MAX_DOCUMENT_FILE_BYTES });
          if (read.sha256 !== document.hash) throw badInput(document.path, 'file changed since it was scanned');
          return { base64: read.bytes.toString('base64'), size: read.size };
        },
        (f) => f.base64.length,
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
  const document = requireDocument(kb.getDocument(id), id);
  const file = document.containerId === null ? document : requireDocument(kb.getDocument(document.containerId), id);
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

function requireDocument(document: DocumentRecord | undefined | null, id: number): DocumentRecord {
  if (!document) throw new PolyhopError('NOT_FOUND', `No document ${id} in this knowledge base`, { details: { id } });
  return document;
}

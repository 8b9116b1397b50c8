import { PolyhopError } from '../base/errors.js';
import { badInput } from '../ingest/badInput.js';
import { DocumentLoader } from '../ingest/load/DocumentLoader.js';
import type { LoadedDocument, LoadedPart, LoadedText } from '../ingest/types.js';
import type { KnowledgeBase } from '../kb/KnowledgeBase.js';
import type { DocumentRecord } from '../kb/types.js';
import type { Settings } from './contract.js';
import { documentLimitOptions } from './handlers/indexing.js';

/**
 * Reads a KB document's file again with the indexing loader, its limits and options; the bytes
 * must be the indexed ones (else BAD_INPUT "file changed"). `keepPdfPartBytes`: a mail's PDF
 * attachments come with their bytes.
 */
export async function loadFileAgain(
  settings: Settings,
  file: DocumentRecord,
  { keepPdfPartBytes = false }: { keepPdfPartBytes?: boolean } = {},
): Promise<LoadedDocument> {
  const { limits, load } = documentLimitOptions(settings.documentLimits, settings.ocrLanguages);
  const loader = new DocumentLoader(limits);
  try {
    return await loader.load(file.path, {
      ...load,
      expectedSha256: file.hash,
      ...(keepPdfPartBytes ? { keepPdfPartBytes } : {}),
    });
  } finally {
    await loader.dispose();
  }
}

/** The document's text as the loader reads it again (a part's: found in its file, read again whole). */
export async function readTextAgain(
  kb: KnowledgeBase,
  document: DocumentRecord,
  load: (file: DocumentRecord) => Promise<LoadedDocument>,
): Promise<LoadedText> {
  const { containerId } = document;
  if (containerId === null) return load(document);
  const text = (await readPartAgain(kb, { ...document, containerId }, load)).loaded;
  if (!text) throw badInput(document.path, 'this part is no longer in its file');
  return text;
}

/** A part of a file (a mail's message or attachment) as the loader reads its file again; BAD_INPUT when the file no longer holds it. */
export async function readPartAgain(
  kb: KnowledgeBase,
  part: DocumentRecord & { containerId: number },
  load: (file: DocumentRecord) => Promise<LoadedDocument>,
): Promise<LoadedPart> {
  const file = requireDocument(kb.documents.getDocument(part.containerId), part.id);
  const found = (await load(file)).parts?.find((p) => `${file.path}#${p.partId}` === part.path);
  if (!found) throw badInput(part.path, 'this part is no longer in its file');
  return found;
}

/** The document, NOT_FOUND when there is none. */
export function requireDocument(document: DocumentRecord | undefined | null, id: number): DocumentRecord {
  if (!document) throw new PolyhopError('NOT_FOUND', `No document ${id} in this knowledge base`, { details: { id } });
  return document;
}

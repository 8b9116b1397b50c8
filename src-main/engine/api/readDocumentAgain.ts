import { PolyhopError } from '../base/errors.js';
import { badInput } from '../ingest/badInput.js';
import { DocumentLoader } from '../ingest/load/DocumentLoader.js';
import type { LoadedDocument, LoadedText } from '../ingest/types.js';
import type { KnowledgeBase } from '../kb/KnowledgeBase.js';
import type { DocumentRecord } from '../kb/types.js';
import type { Settings } from './contract.js';
import { documentLimitOptions } from './handlers/indexing.js';

/**
 * Reads a KB document's file again with the indexing loader, its limits and options; the bytes
 * must be the indexed ones (else BAD_INPUT "file changed").
 */
export async function loadFileAgain(settings: Settings, file: DocumentRecord): Promise<LoadedDocument> {
  const { limits, load } = documentLimitOptions(settings.documentLimits, settings.ocrLanguages);
  const loader = new DocumentLoader(limits);
  try {
    return await loader.load(file.path, { ...load, expectedSha256: file.hash });
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
  const file =
    document.containerId === null
      ? document
      : requireDocument(kb.documents.getDocument(document.containerId), document.id);
  const whole = await load(file);
  const text =
    document.containerId === null
      ? whole
      : whole.parts?.find((p) => `${file.path}#${p.partId}` === document.path)?.loaded;
  if (!text) throw badInput(document.path, 'this part is no longer in its file');
  return text;
}

/** The document, NOT_FOUND when there is none. */
export function requireDocument(document: DocumentRecord | undefined | null, id: number): DocumentRecord {
  if (!document) throw new PolyhopError('NOT_FOUND', `No document ${id} in this knowledge base`, { details: { id } });
  return document;
}

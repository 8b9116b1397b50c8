import { throwIfAborted } from '../base/abort.js';
import { isCancellation, toErrorData } from '../base/errors.js';
import { isStorageFull } from '../base/storageError.js';
import { DocumentLoader, type DocumentLimits } from '../ingest/load/DocumentLoader.js';
import type { LoadDocumentOptions } from '../ingest/load/loadDocument.js';
import { fixedSizeChunk, type FixedSizeChunkOptions } from '../ingest/chunk/fixedSizeChunk.js';
import { semanticChunk, type SemanticChunkOptions } from '../ingest/chunk/semanticChunk.js';
import { pageTexts } from '../ingest/pageTexts.js';
import type { KnowledgeBase } from '../kb/KnowledgeBase.js';
import type { DocumentRecord } from '../kb/types.js';
import type { LoadedPart, LoadedText } from '../ingest/types.js';
import type { Embedder } from '../models/Embedder.js';
import { PAPER_THRESHOLDS, type ThresholdMode } from './calibration/index.js';

export interface IngestPendingOptions {
  embedder: Embedder;
  load?: Omit<LoadDocumentOptions, 'expectedSha256' | 'signal' | 'onReadProgress'>;
  /** Memory and time each document may take to load (in its own thread). */
  limits?: DocumentLimits;
  chunking?: Pick<
    SemanticChunkOptions,
    'threshold' | 'breakpointPercentile' | 'windowSentences' | 'maxTokens' | 'batchSize'
  >;
  /**
   * Semantic-chunk breakpoints: 'calibrated' cuts at a percentile of each document's own window
   * distances (Kamradt; follows any embedder's scale), 'paper' at MDER-DR's absolute 0.75. A
   * `chunking.threshold` wins. Default: 'calibrated'.
   */
  thresholds?: ThresholdMode;
  /**
   * The fixed-size passages of the vector-RAG baseline (defaults 1,000 tokens, 200 overlap: the
   * MDER-DR paper's comparison), and how many are embedded per call (default 16).
   */
  /** Fixed-size passages for the vector baseline. Default: 1,000 tokens with 200 overlap (MDER-DR's comparison). */
  passages?: Pick<FixedSizeChunkOptions, 'chunkTokens' | 'overlapTokens'>;
  onProgress?: (progress: { done: number; total: number; message: string }) => void;
  signal?: AbortSignal;
}

/** Prefix of the note ingest leaves on a document it indexed only in part; MDER keeps such notes. */
export const INGEST_NOTE = 'ingest: ';

export interface IngestPendingResult {
  ingested: number;
  failed: { documentId: number; path: string; reason: string }[];
}

/**
 * The first indexing stage: loads every pending document that has no chunks yet, detects its
 * language and cuts it into semantic chunks (for MDER) and into fixed-size passages (the vector
 * baseline's index; the embed stage embeds both). Chunks and passages are written in one
 * transaction. A file that cannot be used gets status `error` with the reason, and the rest go
 * on; nothing already indexed is touched. CONFLICT when the KB holds another embedder's vectors.
 */
export async function ingestPending(kb: KnowledgeBase, options: IngestPendingOptions): Promise<IngestPendingResult> {
  kb.vectors.assertEmbedder(options.embedder.identity, options.embedder.dimension);
  // A part (an MBOX's message…) is read with its container, never from a path of its own.
  const pending = [...kb.documents.iterateDocuments()].filter(
    (d) => d.status === 'pending' && d.chunkCount === 0 && d.containerId === null,
  );
  const result: IngestPendingResult = { ingested: 0, failed: [] };
  options.onProgress?.({ done: 0, total: pending.length, message: '' });
  const loader = new DocumentLoader(options.limits);
  try {
    for (const [index, doc] of pending.entries()) {
      await ingestOne(kb, loader, doc, result, options);
      options.onProgress?.({ done: index + 1, total: pending.length, message: doc.title });
    }
  } finally {
    await loader.dispose();
  }
  return result;
}

/** Loads (in the loader's thread), chunks and stores one document; a document's failure is recorded on it. */
async function ingestOne(
  kb: KnowledgeBase,
  loader: DocumentLoader,
  doc: DocumentRecord,
  result: IngestPendingResult,
  options: IngestPendingOptions,
): Promise<void> {
  const { signal } = options;
  throwIfAborted(signal);
  try {
    const loaded = await loader.load(doc.path, {
      ...options.load,
      expectedSha256: doc.hash,
      ...(signal ? { signal } : {}),
    });
    const own = loaded.text.trim() ? await chunkText(loaded, options) : undefined;
    if (own && own.chunks.length === 0) throw new Error(`${doc.path}: no text to index`);
    const parts: { part: LoadedPart; chunked?: Chunked }[] = [];
    for (const part of loaded.parts ?? []) {
      const chunked = part.loaded ? await chunkText(part.loaded, options) : undefined;
      parts.push({ part, ...(chunked ? { chunked } : {}) });
    }
    const note = loaded.warnings?.length ? `${INGEST_NOTE}${loaded.warnings.join('; ')}` : null;
    kb.transaction(() => {
      kb.documents.updateDocument(doc.id, { language: loaded.language, mime: loaded.mime, title: loaded.title });
      // A container read again gets its parts anew (their chunks and triples go with the old ones).
      for (const old of kb.documents.partsOf(doc.id)) kb.documents.deleteDocument(old.id);
      if (own) {
        kb.documents.replaceChunks(doc.id, own.chunks);
        kb.documents.replacePassages(doc.id, own.passages);
      }
      // A citation is shown from its page as kept here, not from the file read again.
      kb.pages.replace(doc.id, own ? pageTexts(loaded) : []);
      // Which pages OCR read, and how sure it was: the Corpus screen says how far to trust the text.
      kb.ocr.replace(doc.id, own ? loaded.ocr : undefined);
      // What of the file was left out (unreadable pages…) stays on the document as its note; a
      // container without text of its own (an MBOX) has nothing more to index.
      kb.documents.setDocumentStatus(doc.id, own ? 'pending' : 'indexed', note);
      for (const { part, chunked } of parts) {
        const refused = storePart(kb, doc, part, chunked);
        if (refused) result.failed.push(refused);
      }
    });
    result.ingested++;
  } catch (error) {
    // A full disk is not the document's fault: stop the job and leave the document pending for the resume.
    if (isCancellation(error) || isStorageFull(error)) throw error;
    const reason = toErrorData(error).message;
    kb.documents.setDocumentStatus(doc.id, 'error', `${INGEST_NOTE}${reason}`);
    result.failed.push({ documentId: doc.id, path: doc.path, reason });
  }
}

interface Chunked {
  chunks: Awaited<ReturnType<typeof semanticChunk>>;
  passages: ReturnType<typeof fixedSizeChunk>;
}

/** Semantic chunks (MDER's units) and fixed-size passages (the vector baseline's) of one loaded text. */
async function chunkText(
  loaded: Pick<LoadedText, 'text' | 'pages'> & { language: string },
  options: IngestPendingOptions,
): Promise<Chunked> {
  const { embedder, signal } = options;
  const chunks = await semanticChunk(loaded.text, {
    ...(options.thresholds === 'paper' ? { threshold: PAPER_THRESHOLDS.chunking } : {}),
    ...options.chunking,
    embedder,
    language: loaded.language,
    ...(loaded.pages ? { pages: loaded.pages } : {}),
    ...(signal ? { signal } : {}),
  });
  const passages = fixedSizeChunk(loaded.text, {
    ...options.passages,
    language: loaded.language,
    ...(loaded.pages ? { pages: loaded.pages } : {}),
    ...(signal ? { signal } : {}),
  });
  return { chunks, passages };
}

/**
 * Adds one part of a container as its own document, `<container path>#<part id>`: pending with
 * its chunks, or `error` with the reason it was refused (or had nothing to index). Runs inside
 * the container's transaction.
 */
function storePart(
  kb: KnowledgeBase,
  container: DocumentRecord,
  part: LoadedPart,
  chunked: Chunked | undefined,
): IngestPendingResult['failed'][number] | undefined {
  const path = `${container.path}#${part.partId}`;
  const record = kb.documents.addDocument({
    path,
    title: part.loaded?.title ?? part.partId,
    hash: container.hash,
    mime: part.loaded?.mime ?? 'application/octet-stream',
    size: part.size,
    language: part.loaded?.language ?? null,
    containerId: container.id,
  });
  if (!chunked || chunked.chunks.length === 0) {
    const reason = part.error ?? `${path}: no text to index`;
    kb.documents.setDocumentStatus(record.id, 'error', `${INGEST_NOTE}${reason}`);
    return { documentId: record.id, path, reason };
  }
  kb.documents.replaceChunks(record.id, chunked.chunks);
  kb.documents.replacePassages(record.id, chunked.passages);
  if (part.loaded) {
    kb.pages.replace(record.id, pageTexts(part.loaded));
    kb.ocr.replace(record.id, part.loaded.ocr);
  }
  const warnings = part.loaded?.warnings ?? [];
  kb.documents.setDocumentStatus(record.id, 'pending', warnings.length ? `${INGEST_NOTE}${warnings.join('; ')}` : null);
  return undefined;
}

/**
 * The knowledge base's records as its readers see them (the Api shows them as they are): a KB's
 * summary and calibration, documents with their chunks and triples, entity cards and graph views.
 */

export interface KbSummary {
  name: string;
  description: string;
  baseIri: string;
  documentCount: number;
  entityCount: number;
  tripleCount: number;
  embedder: { identity: string; dimension: number } | null;
  /**
   * Rows waiting for their first vectors: with no embedder recorded (an RDF import made without an
   * embedding model), every entity, triple, chunk and passage; `kb:reembed` fills them once an
   * embedding model is loaded. With an embedder recorded: the non-English chunks without an
   * original-language vector (a KB indexed before those existed, or a re-embed cut short), which
   * `kb:reembed` or the next index job makes; other gaps left by an interrupted run are filled by
   * the next one and not counted.
   */
  missingVectors: number;
  /**
   * Work an older Polyhop left (recentring vector codes, keeping the pages of PDFs and TIFFs): the
   * upgrade job does it when the KB is first used, or on `kb:upgrade`.
   */
  upgradeDue: boolean;
  createdAt: string;
}

export interface KbInfo extends KbSummary {
  chunkCount: number;
  relationCount: number;
  rdf: { state: 'idle' | 'loading' | 'ready' | 'error'; triples: number; message?: string };
  sizeBytes: number;
  /** Similarity thresholds fitted to the KB's embedder (null until an indexing run has measured them). */
  calibration: KbCalibration | null;
}

/** Spread of cosine similarity over pairs of unrelated texts. */
export interface SimilaritySpread {
  pairs: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** How a KB's thresholds were fitted to its embedder (see Settings `thresholds`). */
export interface KbCalibration {
  embedder: string;
  calibratedAt: string;
  entityCount: number;
  /** Percentile of unrelated pairs a threshold sits at. */
  percentile: number;
  names: SimilaritySpread;
  sentences: SimilaritySpread;
  /** Disambiguate: name cosine from which the LLM is asked (paper: 0.95). */
  mergeThreshold: number;
  /** The percentile of unrelated name pairs it sits at (rises with the KB's size). */
  mergePercentile: number;
  /** DaPT: sub-question cosine from which nodes fuse (paper: τ = 0.8). */
  fusionThreshold: number;
}

export interface DocumentRow {
  id: number;
  path: string;
  title: string;
  mime: string;
  size: number;
  language: string | null;
  status: 'pending' | 'indexing' | 'indexed' | 'error';
  error: string | null;
  chunkCount: number;
  tripleCount: number;
  addedAt: string;
}

/** A row of a document list: the document, and how many parts (a mail's messages and attachments) it holds. */
export interface DocumentListRow extends DocumentRow {
  partCount: number;
}

export interface DocumentPage {
  total: number;
  rows: DocumentListRow[];
}

export interface ChunkView {
  id: number;
  ord: number;
  text: string;
  summary: string | null;
  englishText: string | null;
  language: string | null;
  startOffset: number;
  endOffset: number;
  page: number | null;
}

export interface TripleView {
  id: number;
  sourceId: number;
  source: string;
  relation: string;
  targetId: number;
  target: string;
  description: string | null;
  chunkIds: number[];
}

/** A document's extracted text, which chunk and citation offsets (`[start, end)`) point into. */
export interface DocumentSource {
  document: DocumentRow;
  text: string;
  /** Where each page starts in `text` (1-based pages, ascending) for paged formats (PDF); null otherwise. */
  pages: { page: number; startOffset: number }[] | null;
}

/** The page a cited passage starts on (a document without pages: all of its text), with the passage on it. */
export interface DocumentPageText {
  document: DocumentRow;
  /** 1-based page; null for a document without pages, whose whole text this is. */
  page: number | null;
  /** The page's span in the document's text: `text` is the document's text `[startOffset, endOffset)`. */
  startOffset: number;
  endOffset: number;
  text: string;
  /** The passage as offsets into `text`, `[start, end)`, cut at the page's end. */
  passage: { start: number; end: number };
  /** The passage goes on past this page. */
  continues: boolean;
  /** `index`: the page as kept at indexing; `file`: the file read again (indexed before schema v16, or no pages kept). */
  readFrom: 'index' | 'file';
}

export interface DocumentDetail {
  document: DocumentRow;
  chunks: ChunkView[];
  triples: TripleView[];
  /** The pages read by OCR at its last indexing, with their confidence; null when none was (or before schema v18). */
  ocr: OcrRecord | null;
}

/** Which pages of a document were read by OCR, and how sure the OCR was (kept per document, schema v18). */
export interface OcrRecord {
  /** Tesseract language codes the OCR recognised. */
  languages: string[];
  /** In page order. */
  pages: {
    /** 1-based page number (1 for an image file). */
    page: number;
    /** Tesseract's mean word confidence on the page, 0–100, rounded. */
    confidence: number;
    /** Why the page was OCR'd. */
    reason: 'no text layer' | 'unreadable text' | 'image';
  }[];
}

export interface AddDocumentsResult {
  added: DocumentRow[];
  unchanged: number;
  /** Documents whose file moved (same content, new path): kept with what was extracted from them. */
  renamed: number;
  /** Documents whose file is gone from a re-scanned folder. */
  removed: number;
  errors: { path: string; reason: string }[];
  /** How long indexing the added documents may take; absent when none is a text format. */
  estimate?: IndexingEstimateView;
}

/** A plan-ahead time for indexing (engine/mder/indexingEstimate.ts: measured tokens, published GPU rates). */
export interface IndexingEstimateView {
  seconds: number;
  rounded: { hours: number; minutes: number; seconds: number };
  /** The GPU and catalog model the time is for. */
  gpu: string;
  model: string;
  /** The English line, e.g. "about 2 h 10 min on an RTX 3090 with Qwen3-8B Q4_K_M". */
  text: string;
  /** Documents counted (text formats, by file size) and not (PDF, DOCX: their text is known once read). */
  documents: number;
  uncounted: number;
}

export interface EntitySummaryView {
  id: number;
  name: string;
  type: string;
  summary: string | null;
  score?: number;
}

export interface EntityCard extends EntitySummaryView {
  aliases: string[];
  outgoing: TripleView[];
  incoming: TripleView[];
  sourceChunks: { chunkId: number; documentId: number; documentTitle: string; text: string; page: number | null }[];
}

export interface GraphView {
  nodes: { id: number; name: string; type: string; hop: number }[];
  edges: { id: number; source: number; target: number; relation: string }[];
  truncated: boolean;
}

/** A folder kept in sync with a KB, and how that is going. */
export interface WatchedFolderView {
  kb: string;
  path: string;
  ignore: string[];
  /**
   * `events`: file-system events; `polling`: periodic scans (the system's watch limit was
   * reached; `message` says so); `stopped`: nothing follows it now (no window, browser mode or
   * `polyhop watch` running), and the next start catches up by a scan.
   */
  mode: 'events' | 'polling' | 'stopped';
  message: string | null;
  lastSync: WatchSync | null;
}

export interface WatchSync {
  at: string;
  added: number;
  removed: number;
  renamed: number;
  unchanged: number;
  errors: number;
}

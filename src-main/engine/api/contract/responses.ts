/** What each method answers, composed from the domains' own views. */
import type { EvalReportView } from '../../eval/types.js';
import type { ReasoningMode, ReasoningStep } from '../../models/views.js';
import type {
  WatchedFolderView,
  AddDocumentsResult,
  DocumentDetail,
  DocumentSource,
  DocumentPage,
  DocumentPageText,
  EntityCard,
  EntitySummaryView,
  GraphView,
  KbInfo,
  KbSummary,
} from '../../kb/views.js';
import type { SparqlResult } from '../../kb/rdf/SparqlResult.js';
import type { StoreStatus } from '../../kb/store/StoreStatus.js';
import type {
  CatalogEntry,
  EndpointProbeView,
  EndpointSetting,
  EndpointStatusView,
  GpuDevice,
  ModelFile,
  ModelInfo,
  ModelSelection,
  ModelStatus,
} from '../../models/views.js';
import type {
  FollowUpRewrite,
  HistoryEntry,
  QuestionEstimate,
  StrategyName,
  Thread,
  ThreadExportFormat,
  ThreadSummary,
} from '../../qa/Answer.js';
import type { JobState } from './events.js';

export interface ErrorData {
  code: string;
  message: string;
  details: Record<string, unknown>;
}
export type Reply<T> = { ok: true; value: T } | { ok: false; error: ErrorData };

export interface JobRef {
  jobId: string;
}

export interface DoctorReport {
  versions: Record<string, string>;
  llama: { backend: string; gpu: string | false; devices: GpuDevice[]; error?: string };
  electronBinary: { present: boolean; reason?: string };
  models: { file: string; sizeBytes: number; kind: 'gguf' | 'onnx' }[];
  modelsDir: string;
  dataDir: { path: string; writable: boolean };
  generation: ModelStatus | null;
  embedding: ModelStatus | null;
  /** Why a selected model could not be loaded. */
  modelErrors: string[];
  /** The only hosts beyond loopback the engine connects to (configured inference servers and SPARQL stores); empty: nothing leaves this machine. */
  remoteHosts: string[];
  /** OCR languages installed (`@tesseract.js-data/<code>`): Tesseract code and, where known, the BCP 47 tag that names it. */
  ocrLanguages: { code: string; tag: string | null }[];
  /** The configured SPARQL stores (scheme, host and port of each endpoint), which the network line names beside the inference servers. */
  storeOrigins: string[];
}

export interface Settings {
  defaultStrategy: StrategyName;
  answerLanguage: string | null;
  uiLanguage: string | null;
  theme: 'system' | 'light' | 'dark';
  concurrency: number;
  /**
   * Similarity thresholds: 'calibrated' fits chunking, merging and DaPT fusion to the embedder
   * (percentile breakpoints; the KB's recorded calibration), 'paper' uses the papers' 0.75, 0.95
   * and τ = 0.8. An explicit `dapt.tau` in strategyParams wins.
   */
  thresholds: 'calibrated' | 'paper';
  strategyParams: Record<string, number>;
  generationModel: ModelSelection | null;
  embeddingModel: ModelSelection | null;
  /**
   * OpenAI-compatible inference servers; when a role has any, they serve it instead of the local
   * model. Read through the Api, `apiKey` is replaced by `hasApiKey`.
   */
  endpoints: EndpointSetting[];
  /** What one document may take to load (its own thread is stopped past memory or time), and the largest DOCX text part. */
  documentLimits: { memoryMb: number; timeSeconds: number; docxXmlMb: number };
  /**
   * The languages OCR recognises in scans (Tesseract codes of installed `@tesseract.js-data`
   * packages), all together; null: every installed language. Fewer languages read faster and
   * confuse less (a Latin-script page read as Chinese).
   */
  ocrLanguages: string[] | null;
  /**
   * Which indexing and answering steps let a thinking model reason ('on') or switch its reasoning
   * off ('off'), every step listed; saved without a step, it takes its default (`REASONING_STEPS`
   * in models/reasoningPolicy: extraction off, deciding steps and answers on).
   */
  reasoning: Record<ReasoningStep, ReasoningMode>;
}

/** What each method answers. */
export interface Responses {
  'system:doctor': DoctorReport;
  'system:getSettings': Settings;
  'system:setSettings': Settings;
  'kb:list': KbSummary[];
  'kb:create': KbSummary;
  'kb:info': KbInfo;
  'kb:rename': KbSummary;
  'kb:delete': { deleted: true };
  'kb:reembed': JobRef;
  'kb:upgrade': { jobId: string | null };
  'kb:backup': JobRef;
  'kb:restore': JobRef;
  'docs:add': AddDocumentsResult;
  'docs:list': DocumentPage;
  'docs:get': DocumentDetail;
  'docs:remove': { removed: true };
  'docs:reindex': AddDocumentsResult;
  'docs:source': DocumentSource;
  'docs:page': DocumentPageText;
  /** The file's bytes in base64 (JSON carries them over browser mode's HTTP as over IPC). */
  'docs:file': { mime: string; size: number; base64: string };
  'watch:add': WatchedFolderView;
  'watch:remove': { removed: boolean };
  'watch:list': WatchedFolderView[];
  'index:start': JobRef;
  'jobs:list': JobState[];
  'jobs:cancel': { cancelled: boolean };
  'jobs:pause': { paused: boolean };
  'graph:search': EntitySummaryView[];
  'graph:entity': EntityCard;
  'graph:neighbourhood': GraphView;
  'rdf:export': JobRef;
  'rdf:import': JobRef;
  'sparql:query': SparqlResult;
  'store:set': StoreStatus;
  'store:show': StoreStatus;
  'store:publish': JobRef;
  'store:sync': JobRef;
  'store:remove': { removed: boolean };
  'qa:ask': JobRef;
  'qa:history': HistoryEntry[];
  'qa:rewrite': FollowUpRewrite;
  'qa:estimate': QuestionEstimate[];
  'threads:list': ThreadSummary[];
  'threads:get': Thread;
  'threads:rename': ThreadSummary;
  'threads:delete': { deleted: boolean };
  /** The export as text, with the file name and media type to save it under. */
  'threads:export': { format: ThreadExportFormat; fileName: string; mime: string; text: string };
  'models:list': ModelFile[];
  'models:catalog': CatalogEntry[];
  'models:status': { generation: ModelStatus | null; embedding: ModelStatus | null };
  'models:load': ModelStatus;
  'models:unload': { unloaded: boolean };
  'models:inspect': ModelInfo;
  'models:import': ModelFile;
  'models:remove': { removed: true };
  'models:download': JobRef;
  'models:try': { text: string; promptTokens: number; completionTokens: number; ms: number };
  'endpoints:list': EndpointStatusView[];
  'endpoints:add': EndpointStatusView;
  'endpoints:remove': { removed: true };
  'endpoints:test': EndpointProbeView;
  'eval:run': JobRef;
  'eval:report': EvalReportView;
}

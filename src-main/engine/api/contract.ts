/**
 * The one contract between the engine and its front doors (Electron IPC, browser mode, CLI,
 * in-memory test transport). Imports nothing but the schema library, so the renderer and the
 * preload can include it.
 *
 * Every method is `area:verb`, takes one JSON payload validated against its request schema at
 * the front door, and answers `{ ok: true, value } | { ok: false, error }`. Long operations answer
 * a `{ jobId }` and stream `job:progress` / `job:finished` events.
 */
import type { ReasoningMode, ReasoningStep } from '../models/reasoningPolicy.js';
import { z } from 'zod';

const kbName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[\p{L}\p{N}][\p{L}\p{N} _.-]*$/u, 'letters, digits, space, "_", "-", "." only');
const id = z.number().int().nonnegative();
const path = z.string().min(1).max(4096);
const shortText = z.string().max(10_000);

export const STRATEGIES = ['dr', 'hyp', 'dapt', 'vector', 'llm-only'] as const;
export type StrategyName = (typeof STRATEGIES)[number];
export const RDF_FORMATS = ['turtle', 'ntriples', 'nquads', 'rdfxml'] as const;
export type RdfFormat = (typeof RDF_FORMATS)[number];
export const DATASET_FORMATS = ['hotpotqa', '2wiki', 'musique', 'hipporag-corpus', 'mse-kg', 'xquad', 'afriqa', 'csv', 'jsonl'] as const;
export type DatasetFormatName = (typeof DATASET_FORMATS)[number];
const languageCode = z.string().regex(/^[a-z]{2,3}$/);

const empty = z.object({}).strict();
const storeUrl = z.string().url().max(2000);

/** A model the user picked and how to run it; kept in settings so every front door loads the same. */
export const modelSelectionSchema = z
  .object({
    path,
    gpuLayers: z.union([z.literal('auto'), z.number().int().nonnegative()]).default('auto'),
    contextSize: z.number().int().min(512).max(1_048_576).optional(),
    threads: z.number().int().positive().max(256).optional(),
    batchSize: z.number().int().positive().max(65_536).optional(),
    sequences: z.number().int().min(1).max(64).optional(),
  })
  .strict();
export type ModelSelection = z.output<typeof modelSelectionSchema>;

/** Request schemas, one per method. Unknown fields are refused (`strict`). */
export const requestSchemas = {
  'system:doctor': empty,
  'system:getSettings': empty,
  'system:setSettings': z.object({ settings: z.record(z.string().max(100), z.unknown()) }).strict(),

  'kb:list': empty,
  'kb:create': z.object({ name: kbName, description: shortText.optional(), baseIri: z.string().url().max(2000).optional() }).strict(),
  'kb:info': z.object({ kb: kbName }).strict(),
  'kb:rename': z.object({ kb: kbName, newName: kbName }).strict(),
  'kb:delete': z.object({ kb: kbName }).strict(),
  /** Rebuilds every vector with the loaded embedding model (after switching models). */
  'kb:reembed': z.object({ kb: kbName }).strict(),
  /** One-file backup, usable while indexing runs. */
  'kb:backup': z.object({ kb: kbName, outputPath: path }).strict(),
  /** Verifies a backup file, then restores it as a KB named `name` (replacing it only when `replace`). */
  'kb:restore': z.object({ inputPath: path, name: kbName, replace: z.boolean().default(false) }).strict(),

  'docs:add': z.object({ kb: kbName, paths: z.array(path).min(1).max(10_000) }).strict(),
  'docs:list': z
    .object({
      kb: kbName,
      offset: z.number().int().nonnegative().default(0),
      limit: z.number().int().positive().max(1000).default(200),
      sort: z.enum(['title', 'mime', 'language', 'size', 'chunkCount', 'tripleCount', 'status', 'addedAt']).default('addedAt'),
      descending: z.boolean().default(false),
      filter: z.string().max(500).default(''),
    })
    .strict(),
  'docs:get': z.object({ kb: kbName, id }).strict(),
  'docs:remove': z.object({ kb: kbName, id }).strict(),
  /** Drops what was extracted from a document and queues it again (the next indexing run redoes it). */
  'docs:reindex': z.object({ kb: kbName, id }).strict(),

  'index:start': z.object({ kb: kbName }).strict(),
  'jobs:list': empty,
  'jobs:cancel': z.object({ jobId: z.string().max(100) }).strict(),
  'jobs:pause': z.object({ jobId: z.string().max(100) }).strict(),

  'graph:search': z.object({ kb: kbName, query: z.string().max(1000), type: z.string().max(200).optional(), limit: z.number().int().positive().max(500).default(50) }).strict(),
  'graph:entity': z.object({ kb: kbName, id }).strict(),
  'graph:neighbourhood': z.object({ kb: kbName, id, hops: z.number().int().min(1).max(3).default(1), limit: z.number().int().positive().max(20_000).default(2000) }).strict(),
  'rdf:export': z
    .object({
      kb: kbName,
      format: z.enum(RDF_FORMATS).default('turtle'),
      scope: z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('all') }).strict(),
        z.object({ kind: z.literal('original') }).strict(),
        z.object({ kind: z.literal('document'), documentId: id }).strict(),
        z.object({ kind: z.literal('entity'), entityId: id, hops: z.number().int().min(1).max(3) }).strict(),
      ]),
      outputPath: path,
    })
    .strict(),
  'rdf:import': z
    .object({
      kb: kbName,
      inputPath: path,
      format: z.enum(RDF_FORMATS).optional(),
      /** Base for the file's relative IRIs. Default: the file's own file:// URL. */
      baseIri: z.string().url().max(2000).optional(),
    })
    .strict(),
  'sparql:query': z
    .object({
      kb: kbName,
      query: z.string().min(1).max(100_000),
      allowUpdate: z.boolean().default(false),
      timeoutMs: z.number().int().positive().max(600_000).default(10_000),
      maxRows: z.number().int().positive().max(100_000).default(1000),
      /** The in-memory RDF view, or the KB's external store (see `store:set`). */
      target: z.enum(['view', 'store']).default('view'),
    })
    .strict(),

  /** Points a KB at an external SPARQL 1.1 store; omitted URLs default to `queryUrl`, an omitted password keeps the stored one. */
  'store:set': z
    .object({
      kb: kbName,
      queryUrl: storeUrl,
      updateUrl: storeUrl.optional(),
      graphStoreUrl: storeUrl.optional(),
      /** Default: `<the KB's base IRI>graph`. */
      graphIri: z.string().url().max(2000).optional(),
      auth: z
        .discriminatedUnion('kind', [
          z.object({ kind: z.literal('none') }).strict(),
          z.object({ kind: z.literal('basic'), username: z.string().min(1).max(200), password: z.string().max(1000).optional() }).strict(),
          z.object({ kind: z.literal('digest'), username: z.string().min(1).max(200), password: z.string().max(1000).optional() }).strict(),
        ])
        .default({ kind: 'none' }),
      batchQuads: z.number().int().min(100).max(1_000_000).optional(),
      /** Sync after every indexing run, import and document removal. Default: true. */
      autoSync: z.boolean().optional(),
    })
    .strict(),
  /** The KB's store and sync state; `probe` also counts the statements in the store's graph. */
  'store:show': z.object({ kb: kbName, probe: z.boolean().default(false) }).strict(),
  /** Replaces the store's graph with the whole KB (a full resync). */
  'store:publish': z.object({ kb: kbName }).strict(),
  /** Sends what changed since the last sync (in full when a full publish is due). */
  'store:sync': z.object({ kb: kbName }).strict(),
  /** Forgets the KB's store (the store's graph is left as it is). */
  'store:remove': z.object({ kb: kbName }).strict(),

  'qa:ask': z
    .object({
      kb: kbName,
      question: z.string().min(1).max(4000),
      strategy: z.enum(STRATEGIES).default('dr'),
      answerLanguage: z.string().regex(/^[a-z]{2,3}$/).optional(),
      retrievalOnly: z.boolean().default(false),
    })
    .strict(),
  'qa:history': z.object({ kb: kbName, search: z.string().max(1000).default(''), limit: z.number().int().positive().max(1000).default(100) }).strict(),

  'models:list': empty,
  'models:catalog': empty,
  'models:status': empty,
  'models:load': modelSelectionSchema.extend({ role: z.enum(['generation', 'embedding']) }).strict(),
  'models:unload': z.object({ role: z.enum(['generation', 'embedding']) }).strict(),
  'models:inspect': z.object({ path }).strict(),
  'models:import': z.object({ path, mode: z.enum(['copy', 'reference']).default('copy') }).strict(),
  'models:remove': z.object({ file: z.string().min(1).max(500) }).strict(),
  'models:download': z.object({ catalogId: z.string().min(1).max(200) }).strict(),
  'models:try': z.object({ prompt: z.string().min(1).max(10_000), maxTokens: z.number().int().positive().max(4096).default(256) }).strict(),

  /** Inference servers (settings `endpoints`); the handler checks a new one against its full schema (models/endpoints/EndpointConfig.ts). */
  'endpoints:list': empty,
  'endpoints:add': z
    .object({
      id: z.string().min(1).max(100),
      role: z.enum(['generation', 'embedding']),
      baseUrl: z.string().min(1).max(2000),
      model: z.string().min(1).max(200),
      apiKey: z.string().min(1).max(1000).optional(),
      concurrency: z.number().int().optional(),
    })
    .strict(),
  'endpoints:remove': z.object({ id: z.string().min(1).max(100) }).strict(),
  /** One real round trip (`GET /models`) to a configured endpoint. */
  'endpoints:test': z.object({ id: z.string().min(1).max(100) }).strict(),

  'eval:run': z
    .object({
      datasetPath: path,
      format: z.enum(DATASET_FORMATS),
      strategies: z.array(z.enum(STRATEGIES)).min(1).max(STRATEGIES.length),
      /** Default: the data set's own language. */
      languages: z.array(languageCode).min(1).max(20).optional(),
      limit: z.number().int().positive().max(100_000).default(20),
      sample: z.enum(['first', 'random']).default('first'),
      outDir: path,
      corpusPath: path.optional(),
      graphPath: path.optional(),
      datasetLanguage: languageCode.optional(),
      judge: z.boolean().default(true),
      /** A second generation model (GGUF) for LLM-as-judge, so the judge is not the model under test. Default: the generation model. */
      judgeModel: modelSelectionSchema.optional(),
      /** The embedding model of the similarity metric, named in the report (e.g. all-MiniLM-L6-v2, as HyP-KGRAG). Default: none, no similarity column. */
      similarityModel: modelSelectionSchema.optional(),
      baselines: z.array(z.enum(STRATEGIES)).max(STRATEGIES.length).optional(),
      concurrency: z.number().int().min(1).max(16).default(1),
    })
    .strict(),
  'eval:report': z.object({ outDir: path }).strict(),
} as const;

export type Method = keyof typeof requestSchemas;
export const METHODS = Object.keys(requestSchemas) as Method[];
export type Request<M extends Method> = z.input<(typeof requestSchemas)[M]>;
export type ParsedRequest<M extends Method> = z.output<(typeof requestSchemas)[M]>;

// ---------- Response types ----------

export interface ErrorData {
  code: string;
  message: string;
  details: Record<string, unknown>;
}
export type Reply<T> = { ok: true; value: T } | { ok: false; error: ErrorData };

export interface JobRef {
  jobId: string;
}

export interface GpuDevice {
  name: string;
  vramTotalBytes: number;
  vramFreeBytes: number;
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
}

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

export interface DocumentPage {
  total: number;
  rows: DocumentRow[];
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

export interface DocumentDetail {
  document: DocumentRow;
  chunks: ChunkView[];
  triples: TripleView[];
}

export interface AddDocumentsResult {
  added: DocumentRow[];
  unchanged: number;
  errors: { path: string; reason: string }[];
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

export interface SparqlResult {
  kind: 'select' | 'ask' | 'graph' | 'update';
  columns: string[];
  rows: Record<string, string | null>[];
  boolean?: boolean;
  /** CONSTRUCT/DESCRIBE results, as Turtle. */
  turtle?: string;
  truncated: boolean;
  elapsedMs: number;
}

/** A KB's external SPARQL store as the Api shows it: never the password, only whether there is one. */
/** Where a KB's copy in its store stands. */
export interface StoreSyncView {
  /** The next sync replaces the whole graph (never published, another store or graph, an RDF import, or asked for). */
  fullNeeded: boolean;
  publishedAt: string | null;
  syncedAt: string | null;
  /** Why the last publish or sync stopped; the next one resumes from there. */
  lastError: string | null;
  /** Documents and entities changed since the store last had them (0 while a full publish is due). */
  pendingDocuments: number;
  pendingEntities: number;
}

export interface StoreStatus {
  kb: string;
  config: {
    queryUrl: string;
    updateUrl: string;
    graphStoreUrl: string;
    graphIri: string;
    auth: { kind: 'none' | 'basic' | 'digest'; username?: string; hasPassword: boolean };
    batchQuads: number;
    requestTimeoutMs: number;
    autoSync: boolean;
  } | null;
  sync: StoreSyncView | null;
  /** The publish or sync job running now. */
  jobId: string | null;
  /** With `probe`: statements in the store's graph, or why it could not be asked. */
  storeQuads?: number;
  probeError?: string;
}

export interface Citation {
  documentId: number;
  documentTitle: string;
  chunkId: number;
  page: number | null;
  startOffset: number;
  endOffset: number;
}

export interface Evidence {
  kind: 'summary' | 'triple' | 'chunk';
  text: string;
  /** Entity name, triple, or chunk label. */
  label: string;
  score: number;
  citations: Citation[];
}

export interface TraceStep {
  step: string;
  detail: unknown;
  llmCalls: number;
  promptTokens: number;
  completionTokens: number;
  ms: number;
}

export interface Answer {
  question: string;
  questionLanguage: string;
  answerLanguage: string;
  strategy: StrategyName;
  /** The explained answer with `[n]` citations. */
  text: string;
  /**
   * The bare answer (entity, date, number, yes/no or short phrase) given with `text` in the same
   * call; empty when the model found none. Absent in retrieval-only mode and in answers stored
   * before it existed.
   */
  shortAnswer?: string;
  /** True when no generation model ran: `text` lists ranked evidence only. */
  retrievalOnly: boolean;
  evidence: Evidence[];
  trace: TraceStep[];
  usage: { llmCalls: number; promptTokens: number; completionTokens: number; cacheHits: number; ms: number };
}

export interface HistoryEntry {
  id: number;
  askedAt: string;
  answer: Answer;
}

export interface ModelFile {
  file: string;
  path: string;
  kind: 'gguf' | 'onnx';
  sizeBytes: number;
}

export interface ModelInfo {
  path: string;
  architecture: string;
  parameters?: number;
  quantisation?: string;
  contextLength?: number;
  embeddingLength?: number;
  chatTemplate?: string;
  metadata: Record<string, string | number | boolean>;
}

export interface ModelStatus {
  role: 'generation' | 'embedding';
  path: string;
  identity: string;
  backend: string;
  gpuLayers: number;
  totalLayers: number;
  contextSize?: number;
  sequences?: number;
  threads?: number;
  dimension?: number;
  /** Why these settings were chosen (auto offload, fallback after out-of-memory…). */
  explanation: string;
  /**
   * A local generation model's chat wrapper (node-llama-cpp's name) and what its own template says
   * about reasoning: whether it reasons, and whether steps can switch that off.
   */
  chat?: { wrapper: string; reasons: boolean; switchable: boolean };
}

export interface CatalogEntry {
  id: string;
  role: 'generation' | 'embedding';
  name: string;
  tier?: 'small' | 'medium' | 'workstation';
  file: string;
  sizeBytes: number;
  licence: string;
  languages: string[];
  quantisation?: string;
  uri: string;
  sha256?: string;
  installed: boolean;
}

export interface EvalReportView {
  outDir: string;
  markdown: string;
  rows: Record<string, unknown>[];
}

/** An endpoint as settings hold it (models/endpoints/EndpointConfig.ts validates it). */
export interface EndpointSetting {
  id: string;
  role: 'generation' | 'embedding';
  baseUrl: string;
  model: string;
  apiKey?: string;
  hasApiKey?: boolean;
  concurrency: number;
}

/**
 * An endpoint and how it fares (never its key). `health` is `unknown` until the endpoint was used
 * or tested and `down` while it is out of the pool; `servedModel` is what the server reports,
 * once seen; `lastError` why it was last taken out.
 */
export interface EndpointStatusView {
  id: string;
  role: 'generation' | 'embedding';
  baseUrl: string;
  model: string;
  hasApiKey: boolean;
  concurrency: number;
  health: 'unknown' | 'up' | 'down';
  servedModel: string | null;
  inFlight: number;
  calls: number;
  failures: number;
  lastError: string | null;
}

/** One round trip to an endpoint (`GET /models`): what it serves and whether the configured model is among them. */
export interface EndpointProbeView {
  ok: boolean;
  servedModels: string[];
  modelServed: boolean;
  latencyMs: number;
  error: string | null;
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
  'kb:backup': JobRef;
  'kb:restore': JobRef;
  'docs:add': AddDocumentsResult;
  'docs:list': DocumentPage;
  'docs:get': DocumentDetail;
  'docs:remove': { removed: true };
  'docs:reindex': AddDocumentsResult;
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

// ---------- Events ----------

export type JobKind = 'index' | 'export' | 'import' | 'ask' | 'download' | 'eval' | 'backup' | 'restore' | 'reembed' | 'store';
export type JobStatus = 'running' | 'paused' | 'done' | 'cancelled' | 'failed';

export interface JobProgress {
  jobId: string;
  kind: JobKind;
  kb: string | null;
  stage: string;
  done: number;
  total: number;
  /** Units per second over the stage so far. */
  rate: number;
  etaSeconds: number | null;
  message: string;
  llmCalls: number;
  promptTokens: number;
  completionTokens: number;
  cacheHits: number;
}

export interface JobState {
  jobId: string;
  kind: JobKind;
  kb: string | null;
  status: JobStatus;
  startedAt: string;
  progress: JobProgress | null;
  error: ErrorData | null;
}

export interface Events {
  'job:progress': JobProgress;
  'job:finished': { jobId: string; kind: JobKind; status: Exclude<JobStatus, 'running'>; result: unknown; error: ErrorData | null };
  /**
   * Streamed answer text of an `ask` job, provisional until `job:finished` brings the Answer.
   * `reset`: drop what streamed so far (a retried reply), `text` starts it anew.
   */
  'qa:token': { jobId: string; text: string; reset?: boolean };
}
export type EventName = keyof Events;
/** One event as it travels (IPC, WebSocket, in-process): narrow on `name`. */
export type PolyhopEvent = { [E in EventName]: { name: E; payload: Events[E] } }[EventName];
export const EVENT_NAMES: EventName[] = ['job:progress', 'job:finished', 'qa:token'];

/** The typed surface every front door offers: one promise-returning call per method. */
export interface PolyhopApi {
  call<M extends Method>(method: M, request: Request<M>): Promise<Responses[M]>;
  on<E extends EventName>(event: E, listener: (payload: Events[E]) => void): () => void;
}

/** Channel names on the Electron IPC bridge. */
export const IPC_INVOKE_CHANNEL = 'polyhop:invoke';
export const IPC_EVENT_CHANNEL = 'polyhop:event';

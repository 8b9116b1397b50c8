/** The models and inference servers as the engine reports them, and the model a user selects. */
import { z } from 'zod';

/** A model the user picked and how to run it; kept in settings so every front door loads the same. */
export const modelSelectionSchema = z
  .object({
    path: z.string().min(1).max(4096),
    gpuLayers: z.union([z.literal('auto'), z.number().int().nonnegative()]).default('auto'),
    contextSize: z.number().int().min(512).max(1_048_576).optional(),
    threads: z.number().int().positive().max(256).optional(),
    batchSize: z.number().int().positive().max(65_536).optional(),
    sequences: z.number().int().min(1).max(64).optional(),
  })
  .strict();
export type ModelSelection = z.output<typeof modelSelectionSchema>;

export interface GpuDevice {
  name: string;
  vramTotalBytes: number;
  vramFreeBytes: number;
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
  /**
   * A GGUF generation model's chat wrapper and reasoning, resolved from its header as loading it
   * would (models/chatReasoning.ts); absent for embedding models and ONNX folders.
   */
  chat?: ChatView;
  metadata: Record<string, string | number | boolean>;
}

/** A chat wrapper (node-llama-cpp's name) and what the model's own template says about reasoning. */
export interface ChatView {
  wrapper: string;
  /** The template has a thought segment the model writes. */
  reasons: boolean;
  /** Steps whose policy does not reason can switch it off with the template's own switch. */
  switchable: boolean;
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
  chat?: ChatView;
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
  /** Requests the server says it runs at once (llama-server `/props` `total_slots`), once connected; calls in flight are capped to it. */
  slots?: number;
  /** The latest wait the endpoint caused (busy, loading), with when it was; null when none. */
  notice?: string | null;
  /**
   * A generation endpoint's context as it reports it, and whether it holds the evidence the strategies need
   * (models/contextPlan.ts `serverContextPlan`), once connected.
   */
  context?: string;
}

/**
 * A test of an endpoint: `GET /models` (what it serves, whether the configured model is among
 * them), then one authenticated call of its role. `ok`: every call answered; `error`: the first
 * that did not.
 */
export interface EndpointProbeView {
  ok: boolean;
  servedModels: string[];
  modelServed: boolean;
  latencyMs: number;
  error: string | null;
  /** The call made for the endpoint's role (a one-token completion, a one-input embedding); null when the model list already failed. */
  roleCall: {
    role: 'generation' | 'embedding';
    ok: boolean;
    what: string;
    error: string | null;
    dimension?: number;
  } | null;
}

/** The pipeline steps a reasoning policy names (models/reasoningPolicy.ts: which prompts each covers, its default). */
export type ReasoningStep =
  | 'preprocess'
  | 'map'
  | 'disambiguate'
  | 'enrich'
  | 'reduce'
  | 'translate'
  | 'decompose'
  | 'resolve'
  | 'judge'
  | 'answer';
export type ReasoningMode = 'on' | 'off';

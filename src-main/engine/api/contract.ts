/**
 * The one contract between the engine and its front doors (Electron IPC, browser mode, CLI,
 * in-memory test transport), composed here from the domains' own types and split by area under
 * `contract/`: request schemas, responses, events, names. Nothing below `api/` imports it, so the
 * wire format never defines the domain; the renderer and the preload import its types only
 * (dependency-cruiser's `front-ends-import-contract-types`).
 *
 * Every method is `area:verb`, takes one JSON payload validated against its request schema at
 * the front door, and answers `{ ok: true, value } | { ok: false, error }`. Long operations answer
 * a `{ jobId }` and stream `job:progress` / `job:finished` events.
 */
import type { Method } from './contract/channels.js';
import type { EventName, Events } from './contract/events.js';
import type { Request } from './contract/requests.js';
import type { Responses } from './contract/responses.js';

export * from './contract/channels.js';
export * from './contract/events.js';
export * from './contract/requests.js';
export * from './contract/responses.js';
export type { StageProgress } from '../base/progress.js';
export { DATASET_FORMATS, type DatasetFormatName, type EvalReportView } from '../eval/types.js';
export type * from '../kb/views.js';
export { OCR_LOW_CONFIDENCE } from '../kb/ocrConfidence.js';
export { RDF_FORMATS, type RdfFormat } from '../kb/rdf/RdfFormat.js';
export type { SparqlResult } from '../kb/rdf/SparqlResult.js';
export type { StoreStatus, StoreSyncView } from '../kb/store/StoreStatus.js';
export { modelSelectionSchema } from '../models/views.js';
export type * from '../models/views.js';
export { STRATEGIES, THREAD_EXPORT_FORMATS } from '../qa/Answer.js';
export type * from '../qa/Answer.js';

/** The typed surface every front door offers: one promise-returning call per method. */
export interface PolyhopApi {
  call<M extends Method>(method: M, request: Request<M>): Promise<Responses[M]>;
  on<E extends EventName>(event: E, listener: (payload: Events[E]) => void): () => void;
}

/** The renderer's view of the engine: the contract's types, the few values it needs, and the client. */
export type * from '../../src-main/engine/api/contract.js';
export { EVENT_NAMES, RDF_FORMATS, STRATEGIES } from './contractValues.js';
export { isAbsoluteIri, isKbName } from '../../src-main/engine/kb/kbNaming.js';
export { OCR_LOW_CONFIDENCE } from '../../src-main/engine/kb/ocrConfidence.js';
export { api, ApiError, createClient, UNREACHABLE } from './client.js';
export type { PolyhopBridge, PolyhopDialogs, SavePathOptions } from './bridge.js';

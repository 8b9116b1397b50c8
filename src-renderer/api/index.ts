/** The renderer's view of the engine: the contract's types plus the client. */
export * from '../../src-main/engine/api/contract.js';
export { api, ApiError, createClient, UNREACHABLE } from './client.js';
export type { PolyhopBridge, PolyhopDialogs, SavePathOptions } from './bridge.js';

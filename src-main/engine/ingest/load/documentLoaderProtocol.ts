import type { ErrorData } from '../../base/errors.js';
import type { LoadedDocument } from '../types.js';
import type { LoadDocumentOptions } from './loadDocument.js';

/** What crosses to the loader thread: options that are plain data (no signal, no callbacks). */
export type WorkerLoadOptions = Omit<LoadDocumentOptions, 'signal' | 'onReadProgress'>;

export interface LoaderRequest {
  id: number;
  path: string;
  options: WorkerLoadOptions;
  /** Growth of the thread's own memory (heap and buffers outside it) past which it reports `overMemory`. */
  memoryGrowthBytes: number;
}

export type LoaderReply =
  | { id: number; type: 'started' }
  | { id: number; type: 'done'; document: LoadedDocument }
  | { id: number; type: 'failed'; error: ErrorData }
  /** The thread's memory grew past `memoryGrowthBytes` (the parent stops it). */
  | { id: number; type: 'overMemory'; grownBytes: number };

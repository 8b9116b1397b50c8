import type { ErrorData } from '../../base/errors.js';
import type { LoadedDocument } from '../types.js';
import type { LoadDocumentOptions } from './loadDocument.js';

/** What crosses to the loader thread: options that are plain data (no signal, no callbacks). */
export type WorkerLoadOptions = Omit<LoadDocumentOptions, 'signal' | 'onReadProgress'>;

export interface LoaderRequest {
  id: number;
  path: string;
  options: WorkerLoadOptions;
}

export type LoaderReply = { id: number; type: 'started' } | { id: number; type: 'done'; document: LoadedDocument } | { id: number; type: 'failed'; error: ErrorData };

import { FORMAT_BY_EXTENSION } from '../ingest/load/formats.js';

/** The file extensions Polyhop reads as documents, without the dot (file pickers' filters). */
export const DOCUMENT_EXTENSIONS: readonly string[] = Object.keys(FORMAT_BY_EXTENSION).map((ext) => ext.slice(1));

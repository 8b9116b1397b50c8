export { preprocessChunk, PreprocessTextSchema } from './preprocessChunk.js';
export type { PreprocessInput, PreprocessOptions, PreprocessResult } from './preprocessChunk.js';
export { languageName, isEnglish } from './languageName.js';

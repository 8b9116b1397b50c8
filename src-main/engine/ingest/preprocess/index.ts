export { preprocessChunk, PreprocessTextSchema } from './preprocessChunk.js';
export type { PreprocessInput, PreprocessOptions, PreprocessResult } from './preprocessChunk.js';
export { fenceText, languageName, isEnglish } from './fenceText.js';

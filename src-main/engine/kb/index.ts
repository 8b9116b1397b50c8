export { KnowledgeBase } from './KnowledgeBase.js';
export type { KnowledgeBaseOptions, KnnOptions, ListEntitiesOptions, IterateOptions } from './KnowledgeBase.js';
export { KbRegistry } from './KbRegistry.js';
export type { KbRegistryOptions, KbEntry, CreateKbOptions } from './KbRegistry.js';
export { verbaliseTriple } from './verbaliseTriple.js';
export { entityKey } from './entityKey.js';
export * from './types.js';
export { englishCorpusText, englishTextOf } from './chunkCorpora.js';

import type { KnowledgeBase } from '../../src-main/engine/kb/index.js';
import { sha256Hex } from '../../src-main/engine/base/hash.js';

/** Adds a text passage (English unless `language` says) to a KB as a pending document of one chunk (no loader, no chunker). */
export function addPassageDocument(
  kb: KnowledgeBase,
  passage: { path: string; title: string; text: string; language?: string },
): void {
  const { path, title, text, language = 'en' } = passage;
  const doc = kb.documents.addDocument({
    path,
    title,
    hash: sha256Hex(text),
    mime: 'text/plain',
    size: text.length,
    language,
  });
  kb.documents.replaceChunks(doc.id, [{ ord: 0, text, language, startOffset: 0, endOffset: text.length, page: null }]);
}

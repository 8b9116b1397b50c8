import type { KnowledgeBase } from '../../src-main/engine/kb/index.js';
import { sha256Hex } from '../../src-main/engine/base/hash.js';

/** Adds an English text passage to a KB as a pending document of one chunk (no loader, no chunker). */
export function addPassageDocument(kb: KnowledgeBase, passage: { path: string; title: string; text: string }): void {
  const { path, title, text } = passage;
  const doc = kb.documents.addDocument({
    path,
    title,
    hash: sha256Hex(text),
    mime: 'text/plain',
    size: text.length,
    language: 'en',
  });
  kb.documents.replaceChunks(doc.id, [
    { ord: 0, text, language: 'en', startOffset: 0, endOffset: text.length, page: null },
  ]);
}

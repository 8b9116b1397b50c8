import { join } from 'node:path';
import { KnowledgeBase } from '../../../../src-main/engine/kb/index.js';
import { PromptLibrary } from '../../../../src-main/engine/models/PromptLibrary.js';

export const prompts = new PromptLibrary(join(import.meta.dirname, '../../../../prompts'));

export function openKb(file: string): KnowledgeBase {
  return KnowledgeBase.open(file, { create: { name: 'odyssey', baseIri: 'https://polyhop.invalid/odyssey/' } });
}

/** The KB's content by names (ids differ between runs that do the same work in another order). */
export function snapshot(kb: KnowledgeBase) {
  const docs = [...kb.documents.iterateDocuments()];
  const title = new Map(docs.map((d) => [d.id, d.title]));
  const chunks = [...kb.documents.iterateChunks()];
  const label = new Map(chunks.map((c) => [c.id, `${title.get(c.documentId)}#${c.ord}`]));
  return {
    documents: docs
      .map((d) => ({ title: d.title, status: d.status, error: d.error }))
      .sort((a, b) => a.title.localeCompare(b.title)),
    chunks: chunks
      .map((c) => ({ chunk: label.get(c.id), text: c.text, englishText: c.englishText, summary: c.summary }))
      .sort((a, b) => a.chunk!.localeCompare(b.chunk!)),
    entities: [...kb.graph.iterateEntities()]
      .map((e) => ({
        name: e.name,
        type: e.type,
        summary: e.summary,
        stale: e.summaryStale,
        aliases: [...e.aliases].sort(),
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    triples: [...kb.graph.iterateTriples()]
      .map(
        (t) =>
          `${t.sourceName} | ${t.relation} | ${t.targetName} | ${t.description} | ${t.chunkIds
            .map((id) => label.get(id))
            .sort()
            .join(',')}`,
      )
      .sort(),
    vectors: kb.stats().vectors,
  };
}

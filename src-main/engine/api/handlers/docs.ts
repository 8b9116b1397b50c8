import { PolyhopError } from '../../base/errors.js';
import type { ChunkRecord, DocumentRecord, TripleRecord } from '../../kb/types.js';
import type { KnowledgeBase } from '../../kb/KnowledgeBase.js';
import type { ChunkView, TripleView } from '../contract.js';
import { addDocuments, answersOfDocumentsChanged, toRow, updateView, withParts } from '../documentChanges.js';
import type { Handlers } from '../dispatch.js';
import type { Engine } from '../Engine.js';

type DocMethods = 'docs:add' | 'docs:list' | 'docs:get' | 'docs:remove' | 'docs:reindex';

export function docHandlers(engine: Engine): Pick<Handlers, DocMethods> {
  const { kbs } = engine;
  return {
    'docs:add': async ({ kb: name, paths }) => addDocuments(engine, name, paths),
    'docs:list': ({ kb: name, ...options }) => {
      const page = kbs.get(name).kb.documents.listDocuments(options);
      return { total: page.total, rows: page.rows.map((row) => ({ ...toRow(row), partCount: row.partCount })) };
    },
    'docs:get': ({ kb: name, id }) => {
      const { kb } = kbs.get(name);
      const document = requireDocument(kb, id);
      const chunks = kb.documents.chunksOfDocument(id);
      return {
        document: toRow(document),
        chunks: chunks.map(toChunkView),
        triples: kb.graph.triplesOfChunks(chunks.map((c) => c.id)).map(toTripleView),
        ocr: kb.ocr.get(id) ?? null,
      };
    },
    'docs:remove': async ({ kb: name, id }) => {
      const session = kbs.get(name);
      requireDocument(session.kb, id);
      const ids = withParts(session, id);
      session.kb.documents.deleteDocument(id);
      for (const removed of ids) await updateView(session.rdf.documentRemoved(removed));
      await answersOfDocumentsChanged(session, ids);
      engine.stores.changed(session.name);
      return { removed: true as const };
    },
    'docs:reindex': async ({ kb: name, id }) => {
      const session = kbs.get(name);
      // A part (an MBOX's message…) is read again with its file.
      const document = requireDocument(session.kb, id);
      const file = document.containerId === null ? document : requireDocument(session.kb, document.containerId);
      const ids = withParts(session, file.id);
      session.kb.transaction(() => {
        session.kb.answers.markStale(ids, 'reindexed');
        session.kb.documents.deleteDocument(file.id);
      });
      for (const removed of ids) await updateView(session.rdf.documentRemoved(removed));
      await answersOfDocumentsChanged(session, ids);
      return addDocuments(engine, name, [file.path]);
    },
  };
}

function requireDocument(kb: KnowledgeBase, id: number): DocumentRecord {
  const document = kb.documents.getDocument(id);
  if (!document) throw new PolyhopError('NOT_FOUND', `No document ${id} in this knowledge base`, { details: { id } });
  return document;
}

function toChunkView(c: ChunkRecord): ChunkView {
  return {
    id: c.id,
    ord: c.ord,
    text: c.text,
    summary: c.summary,
    englishText: c.englishText,
    language: c.language,
    startOffset: c.startOffset,
    endOffset: c.endOffset,
    page: c.page,
  };
}

export function toTripleView(t: TripleRecord): TripleView {
  return {
    id: t.id,
    sourceId: t.sourceId,
    source: t.sourceName,
    relation: t.relation,
    targetId: t.targetId,
    target: t.targetName,
    description: t.description,
    chunkIds: t.chunkIds,
  };
}

import { stat } from 'node:fs/promises';
import { basename, resolve, sep } from 'node:path';
import { yieldToEventLoop } from '../../base/concurrency.js';
import { PolyhopError, toErrorData } from '../../base/errors.js';
import { formatForPath, MIME_BY_FORMAT } from '../../ingest/load/formats.js';
import { hashFile, scanFolder } from '../../ingest/scanFolder.js';
import type { DocumentRecord } from '../../kb/types.js';
import type { KnowledgeBase } from '../../kb/KnowledgeBase.js';
import { estimateIndexing } from '../../mder/indexingEstimate.js';
import type { AddDocumentsResult, ChunkView, DocumentRow, TripleView } from '../contract.js';
import type { Handlers } from '../dispatch.js';
import type { Engine } from '../Engine.js';

type DocMethods = 'docs:add' | 'docs:list' | 'docs:get' | 'docs:remove' | 'docs:reindex';

export function docHandlers(engine: Engine): Pick<Handlers, DocMethods> {
  const { kbs } = engine;
  return {
    'docs:add': async ({ kb: name, paths }) => addDocuments(engine, name, paths),
    'docs:list': ({ kb: name, ...options }) => {
      const page = kbs.get(name).kb.listDocuments(options);
      return { total: page.total, rows: page.rows.map(toRow) };
    },
    'docs:get': ({ kb: name, id }) => {
      const { kb } = kbs.get(name);
      const document = requireDocument(kb, id);
      const chunks = kb.chunksOfDocument(id);
      return { document: toRow(document), chunks: chunks.map(toChunkView), triples: kb.triplesOfChunks(chunks.map((c) => c.id)).map(toTripleView) };
    },
    'docs:remove': async ({ kb: name, id }) => {
      const session = kbs.get(name);
      requireDocument(session.kb, id);
      session.kb.deleteDocument(id);
      await updateView(session.rdf.documentRemoved(id));
      engine.stores.changed(session.name);
      return { removed: true as const };
    },
    'docs:reindex': async ({ kb: name, id }) => {
      const session = kbs.get(name);
      const { path } = requireDocument(session.kb, id);
      session.kb.deleteDocument(id);
      await updateView(session.rdf.documentRemoved(id));
      return addDocuments(engine, name, [path]);
    },
  };
}

function requireDocument(kb: KnowledgeBase, id: number): DocumentRecord {
  const document = kb.getDocument(id);
  if (!document) throw new PolyhopError('NOT_FOUND', `No document ${id} in this knowledge base`, { details: { id } });
  return document;
}

/**
 * Adds files and folders: new files become pending documents, changed files (another hash) are
 * replaced, unchanged ones skipped; a folder given again is a re-scan, so files gone from it
 * are removed. Reading and chunking happen in the indexing job, so this returns quickly.
 */
/** Files recorded per transaction by {@link addDocuments}. */
const FILES_PER_TRANSACTION = 256;

export async function addDocuments(engine: Engine, name: string, paths: readonly string[]): Promise<AddDocumentsResult> {
  const session = engine.kbs.get(name);
  const { kb } = session;
  const result: AddDocumentsResult = { added: [], unchanged: 0, errors: [] };
  const found: { path: string; size: number; sha256: string }[] = [];
  for (const raw of paths) {
    const path = resolve(raw);
    try {
      const info = await stat(path);
      if (info.isDirectory()) {
        const scan = await scanFolder(path);
        found.push(...scan.files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })));
        for (const skipped of scan.skipped) result.errors.push({ path: skipped.path, reason: skipped.reason });
        const present = new Set(scan.files.map((f) => f.path));
        for (const doc of kb.iterateDocuments()) {
          if (doc.path.startsWith(path + sep) && !present.has(doc.path)) {
            kb.deleteDocument(doc.id);
            await updateView(session.rdf.documentRemoved(doc.id));
          }
        }
      } else if (info.isFile()) {
        found.push({ path, size: info.size, sha256: await hashFile(path) });
      } else {
        // Devices and pipes never end: hashing /dev/zero would hang the call.
        result.errors.push({ path, reason: 'not a regular file' });
      }
    } catch (error) {
      result.errors.push({ path, reason: toErrorData(error).message });
    }
  }
  // Recorded in transactions of a few hundred files, with the event loop let go between them: one
  // statement per file and no await held every front door for the whole folder.
  for (let start = 0; start < found.length; start += FILES_PER_TRANSACTION) {
    const replaced: number[] = [];
    kb.transaction(() => {
      for (const file of found.slice(start, start + FILES_PER_TRANSACTION)) {
        const existing = kb.findDocumentByPath(file.path);
        if (existing?.hash === file.sha256) {
          result.unchanged++;
          continue;
        }
        if (existing) {
          kb.deleteDocument(existing.id);
          replaced.push(existing.id);
        }
        const format = formatForPath(file.path);
        const added = kb.addDocument({ path: file.path, title: basename(file.path), hash: file.sha256, mime: format ? MIME_BY_FORMAT[format] : 'application/octet-stream', size: file.size });
        result.added.push(toRow(added));
      }
    });
    for (const id of replaced) await updateView(session.rdf.documentRemoved(id));
    await yieldToEventLoop();
  }
  // A text file's size is about its characters (HTML's markup makes it high); a PDF's or DOCX's is not.
  const textual = result.added.filter((d) => d.mime.startsWith('text/'));
  if (textual.length > 0) {
    const estimate = estimateIndexing(textual.reduce((sum, d) => sum + d.size, 0));
    result.estimate = { ...estimate, documents: textual.length, uncounted: result.added.length - textual.length };
  }
  return result;
}

/**
 * The RDF view follows SQLite (the system of record): it is told after the change. A failure
 * there never fails the request: the view is derived, and rebuilds from SQLite on its next load.
 */
async function updateView(update: Promise<void>): Promise<void> {
  await update.catch((error: unknown) => console.error('[polyhop] RDF view update failed; it will be rebuilt:', error));
}

export function toRow(d: DocumentRecord): DocumentRow {
  return { id: d.id, path: d.path, title: d.title, mime: d.mime, size: d.size, language: d.language, status: d.status, error: d.error, chunkCount: d.chunkCount, tripleCount: d.tripleCount, addedAt: d.addedAt };
}

function toChunkView(c: ReturnType<KnowledgeBase['chunksOfDocument']>[number]): ChunkView {
  return { id: c.id, ord: c.ord, text: c.text, summary: c.summary, englishText: c.englishText, language: c.language, startOffset: c.startOffset, endOffset: c.endOffset, page: c.page };
}

export function toTripleView(t: ReturnType<KnowledgeBase['getTriples']>[number]): TripleView {
  return { id: t.id, sourceId: t.sourceId, source: t.sourceName, relation: t.relation, targetId: t.targetId, target: t.targetName, description: t.description, chunkIds: t.chunkIds };
}

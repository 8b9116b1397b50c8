import { basename } from 'node:path';
import { throwIfAborted } from '../base/abort.js';
import { PolyhopError } from '../base/errors.js';
import type { KnowledgeBase } from '../kb/KnowledgeBase.js';
import { type ImportRdfResult, importRdf } from '../kb/rdf/importRdf.js';
import type { RdfFormat } from '../kb/rdf/rdfFormats.js';
import type { VectorKind } from '../kb/types.js';
import { tripleText } from '../mder/names.js';
import type { Embedder } from '../models/Embedder.js';
import type { ProgressUpdate } from './JobManager.js';
import type { KbSession } from './KbSessions.js';

export interface ImportRdfIntoKbOptions {
  format?: RdfFormat;
  signal: AbortSignal;
  onProgress: (update: ProgressUpdate) => void;
  /** Texts per embedder call. Default 64. */
  embedBatchSize?: number;
}

/**
 * Makes an RDF graph answerable without any indexing LLM (HyP-KGRAG over an existing KG): its
 * nodes become entities, its statements verbalised triples in the FTS5 index and embedded, and
 * the original statements are kept for export and SPARQL. The KB must be empty; a syntax error
 * stops before anything is written, and any later failure removes what was written.
 *
 * Memory stays bounded whatever the file's size: each batch is written as it comes, and the
 * embedding stage reads what to embed back from SQLite a page at a time.
 */
export async function importRdfIntoKb(session: KbSession, embedder: Embedder, file: string, options: ImportRdfIntoKbOptions): Promise<ImportRdfResult> {
  const { kb } = session;
  const stats = kb.stats();
  if (stats.documents > 0 || stats.entities > 0) throw new PolyhopError('CONFLICT', `Import an RDF graph into a new, empty knowledge base ("${session.name}" already has content)`);
  kb.assertEmbedder(embedder.identity, embedder.dimension);
  const source = basename(file);
  try {
    const result = await importRdf(file, {
      ...(options.format ? { format: options.format } : {}),
      signal: options.signal,
      onProgress: (p) => options.onProgress({ stage: p.phase === 'validate' ? 'validate' : 'import', done: p.bytes, total: p.totalBytes, message: `${p.quads} statements` }),
      // One transaction per batch. Names are unique within the import and aliases come last, so
      // the KB's name index finds each triple's entities without a map of all nodes.
      onBatch: (batch) =>
        kb.transaction(() => {
          kb.addImportedRecords(batch);
          kb.addImportedStatements(source, batch.nquads);
        }),
    });
    await embedAll(kb, embedder, options);
    // As after indexing: a view that never loaded reads SQLite when first used; a loaded one is
    // rebuilt. Its failure does not undo the import (the records are the truth; it is derived).
    if (session.rdf.status.state !== 'idle') await session.rdf.rebuild().catch(() => undefined);
    return result;
  } catch (error) {
    kb.clearGraph();
    throw error;
  }
}

/**
 * Embeds entity names and verbalised triples, read back page by page in id order; the triple text
 * is re-derived the way re-embedding derives it (tripleText), so it matches the BM25 text.
 */
async function embedAll(kb: KnowledgeBase, embedder: Embedder, options: ImportRdfIntoKbOptions): Promise<void> {
  const batchSize = options.embedBatchSize ?? 64;
  const total = kb.countEntities() + kb.countTriples();
  let done = 0;
  const embed = async (kind: VectorKind, rows: Iterable<{ id: number; text: string }>): Promise<void> => {
    for (const slice of slices(rows, batchSize)) {
      throwIfAborted(options.signal);
      const vectors = await embedder.embed(
        slice.map((r) => r.text),
        { purpose: 'passage', signal: options.signal },
      );
      kb.putVectors(kind, slice.map((r, j) => ({ id: r.id, vector: vectors[j] as Float32Array })));
      done += slice.length;
      options.onProgress({ stage: 'embed', done, total, message: kind });
    }
  };
  await embed('entity_name', mapRows(kb.iterateEntities(), (e) => ({ id: e.id, text: e.name })));
  await embed('triple', mapRows(kb.iterateTriples(), (t) => ({ id: t.id, text: tripleText(t.sourceName, t.relation, t.targetName, t.description) })));
}

function* mapRows<T, R>(rows: Iterable<T>, fn: (row: T) => R): Generator<R> {
  for (const row of rows) yield fn(row);
}

function* slices<T>(rows: Iterable<T>, size: number): Generator<T[]> {
  let slice: T[] = [];
  for (const row of rows) {
    slice.push(row);
    if (slice.length === size) {
      yield slice;
      slice = [];
    }
  }
  if (slice.length > 0) yield slice;
}

import { basename } from 'node:path';
import { PolyhopError } from '../base/errors.js';
import { type ImportRdfResult, importRdf } from '../kb/rdf/importRdf.js';
import type { RdfFormat } from '../kb/rdf/rdfFormats.js';
import { planEmbedding } from '../mder/planEmbedding.js';
import type { Embedder } from '../models/Embedder.js';
import type { ProgressUpdate } from './JobManager.js';
import type { KbSession } from './KbSessions.js';

export interface ImportRdfIntoKbOptions {
  format?: RdfFormat;
  /** Base for the file's relative IRIs. Default: the file's own file:// URL. */
  baseIri?: string;
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
 * With no embedder (none chosen yet) the graph is imported all the same: browsing, search by
 * name, SPARQL and export need no model. Its rows are left without vectors and no embedder is
 * recorded, which is how the KB says its vectors are missing; `kb:reembed` fills them once an
 * embedding model is chosen.
 *
 * Memory stays bounded whatever the file's size: each batch is written as it comes, and the
 * embedding stage reads what to embed back from SQLite a page at a time.
 */
export async function importRdfIntoKb(
  session: KbSession,
  embedder: Embedder | null,
  file: string,
  options: ImportRdfIntoKbOptions,
): Promise<ImportRdfResult & { missingVectors: number }> {
  const { kb } = session;
  const stats = kb.stats();
  if (stats.documents > 0 || stats.entities > 0)
    throw new PolyhopError(
      'CONFLICT',
      `Import an RDF graph into a new, empty knowledge base ("${session.name}" already has content)`,
    );
  if (embedder) kb.vectors.assertEmbedder(embedder.identity, embedder.dimension);
  const source = basename(file);
  try {
    const result = await importRdf(file, {
      ...(options.format ? { format: options.format } : {}),
      ...(options.baseIri ? { baseIri: options.baseIri } : {}),
      signal: options.signal,
      onProgress: (p) =>
        options.onProgress({
          stage: p.phase === 'validate' ? 'validate' : 'import',
          done: p.bytes,
          total: p.totalBytes,
          message: `${p.quads} statements`,
        }),
      // One transaction per batch. Names are unique within the import and aliases come last, so
      // the KB's name index finds each triple's entities without a map of all nodes.
      onBatch: (batch) =>
        kb.transaction(() => {
          kb.graph.addImportedRecords(batch);
          kb.importedStatements.addImportedStatements(source, batch.nquads);
        }),
    });
    if (embedder) {
      // The shared embed stage, a page of rows at a time (the BM25 text was written with each batch).
      const plan = planEmbedding(kb, embedder, {
        batchSize: options.embedBatchSize ?? 64,
        fullText: false,
        signal: options.signal,
      });
      let done = 0;
      await plan.run((n) => options.onProgress({ stage: 'embed', done: (done += n), total: plan.total }));
    }
    // As after indexing: a view that never loaded reads SQLite when first used; a loaded one is
    // rebuilt. Its failure does not undo the import (the records are the truth; it is derived).
    await session.rdf.resync().catch(() => undefined);
    return { ...result, missingVectors: kb.vectors.countMissingVectors() };
  } catch (error) {
    kb.clearGraph();
    // The view may have loaded part of the import meanwhile.
    void session.rdf.resync();
    throw error;
  }
}

import { basename } from 'node:path';
import { throwIfAborted } from '../base/abort.js';
import { PolyhopError } from '../base/errors.js';
import { importRdf, type ImportRdfResult } from '../kb/rdf/importRdf.js';
import type { RdfFormat } from '../kb/rdf/rdfFormats.js';
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
 */
export async function importRdfIntoKb(session: KbSession, embedder: Embedder, file: string, options: ImportRdfIntoKbOptions): Promise<ImportRdfResult> {
  const { kb } = session;
  const stats = kb.stats();
  if (stats.documents > 0 || stats.entities > 0) throw new PolyhopError('CONFLICT', `Import an RDF graph into a new, empty knowledge base ("${session.name}" already has content)`);
  kb.assertEmbedder(embedder.identity, embedder.dimension);
  const source = basename(file);
  const idOf = new Map<string, number>();
  const tripleTexts: { id: number; text: string }[] = [];
  try {
    const result = await importRdf(file, {
      ...(options.format ? { format: options.format } : {}),
      signal: options.signal,
      onProgress: (p) => options.onProgress({ stage: p.phase === 'validate' ? 'validate' : 'import', done: p.bytes, total: p.totalBytes, message: `${p.quads} statements` }),
      onBatch: (batch) =>
        kb.transaction(() => {
          for (const entity of batch.entities) {
            const id = kb.upsertEntity(entity.name, entity.type);
            idOf.set(entity.key, id);
            if (entity.aliases.length > 0) kb.addAliases(id, entity.aliases);
          }
          for (const triple of batch.triples) {
            const sourceId = idOf.get(triple.sourceKey);
            const targetId = idOf.get(triple.targetKey);
            if (sourceId === undefined || targetId === undefined) continue;
            const id = kb.addTriple({ sourceId, relation: triple.relation, targetId, chunkId: null });
            tripleTexts.push({ id, text: triple.text });
          }
          kb.indexText('triple', tripleTexts.slice(-batch.triples.length));
          kb.addImportedStatements(source, batch.nquads);
        }),
    });
    await embedAll(session, embedder, tripleTexts, idOf, options);
    await session.rdf.rebuild().catch(() => undefined);
    return result;
  } catch (error) {
    kb.clearGraph();
    throw error;
  }
}

async function embedAll(session: KbSession, embedder: Embedder, triples: readonly { id: number; text: string }[], entities: ReadonlyMap<string, number>, options: ImportRdfIntoKbOptions): Promise<void> {
  const batchSize = options.embedBatchSize ?? 64;
  const entityRows = session.kb.getEntities([...new Set(entities.values())]).map((e) => ({ id: e.id, text: e.name }));
  const work: [kind: 'triple' | 'entity_name', rows: readonly { id: number; text: string }[]][] = [
    ['entity_name', entityRows],
    ['triple', triples],
  ];
  const total = entityRows.length + triples.length;
  let done = 0;
  for (const [kind, rows] of work) {
    for (let i = 0; i < rows.length; i += batchSize) {
      throwIfAborted(options.signal);
      const slice = rows.slice(i, i + batchSize);
      const vectors = await embedder.embed(
        slice.map((r) => r.text),
        { purpose: 'passage', signal: options.signal },
      );
      session.kb.putVectors(kind, slice.map((r, j) => ({ id: r.id, vector: vectors[j] as Float32Array })));
      done += slice.length;
      options.onProgress({ stage: 'embed', done, total, message: kind });
    }
  }
}

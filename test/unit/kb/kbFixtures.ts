import { afterEach, beforeEach } from 'vitest';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KnowledgeBase } from '../../../src-main/engine/kb/KnowledgeBase.js';
import type { NewChunk } from '../../../src-main/engine/kb/types.js';
import { seededRandom } from '../../support/seededRandom.js';
import { sharedDirection } from '../../support/sharedDirection.js';

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-kb-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function createKb(dir: string, name = 'Test KB'): KnowledgeBase {
  return KnowledgeBase.open(join(dir, 'kb.sqlite'), { create: { name, baseIri: 'urn:polyhop:kb:test/' } });
}

export function chunks(...texts: string[]): NewChunk[] {
  let offset = 0;
  return texts.map((text, ord) => {
    const chunk: NewChunk = {
      ord,
      text,
      language: 'en',
      startOffset: offset,
      endOffset: offset + text.length,
      page: null,
    };
    offset += text.length + 1;
    return chunk;
  });
}

export function addDoc(kb: KnowledgeBase, path: string, ...texts: string[]): { id: number; chunkIds: number[] } {
  const doc = kb.documents.addDocument({ path, title: path, hash: `h-${path}`, mime: 'text/plain', size: 10 });
  return { id: doc.id, chunkIds: kb.documents.replaceChunks(doc.id, chunks(...texts)).map((c) => c.id) };
}

/**
 * Clustered unit vectors: `clusters` random centres, each point a centre plus Gaussian noise of
 * relative size `spread` (intra-cluster cosine ≈ 1/(1+spread²)). Queries come from the same law.
 */
export function clusteredVectors(options: {
  dimension: number;
  clusters: number;
  spread: number;
  seed: number;
}): () => Float32Array {
  const random = seededRandom(options.seed);
  const gauss = (): number => {
    let u = 0;
    while (u === 0) u = random();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  };
  const unit = (v: Float32Array): Float32Array => {
    let s = 0;
    for (const x of v) s += x * x;
    const n = Math.sqrt(s);
    return v.map((x) => x / n);
  };
  const centres = Array.from({ length: options.clusters }, () =>
    unit(Float32Array.from({ length: options.dimension }, gauss)),
  );
  const sigma = options.spread / Math.sqrt(options.dimension);
  return () => {
    const centre = centres[Math.floor(random() * centres.length)] as Float32Array;
    return unit(centre.map((x) => x + sigma * gauss()));
  };
}

/**
 * {@link clusteredVectors} leaning on one shared direction, so that independent ones have a cosine
 * of about `meanCosine` (anisotropic, as real sentence embeddings: see test/support/sharedDirection.ts).
 */
export function anisotropicVectors(options: {
  dimension: number;
  clusters: number;
  spread: number;
  seed: number;
  meanCosine: number;
}): () => Float32Array {
  const sample = clusteredVectors(options);
  const lean = sharedDirection(options.dimension, options.meanCosine, options.seed + 1000);
  return () => lean(sample());
}

/**
 * Every way a KB file can hold rows that should not exist, as counts (all zero when consistent),
 * read with a separate connection so nothing in KnowledgeBase's caches can hide a problem.
 */
export function orphanReport(file: string): Record<string, number> {
  const db = new Database(file, { readonly: true });
  try {
    const count = (sql: string): number => db.prepare(sql).pluck().get() as number;
    const report: Record<string, number> = {
      chunksWithoutDocument: count('SELECT COUNT(*) FROM chunks WHERE document_id NOT IN (SELECT id FROM documents)'),
      passagesWithoutDocument: count(
        'SELECT COUNT(*) FROM passages WHERE document_id NOT IN (SELECT id FROM documents)',
      ),
      provenanceWithoutTriple: count(
        'SELECT COUNT(*) FROM triple_chunks WHERE triple_id NOT IN (SELECT id FROM triples)',
      ),
      provenanceWithoutChunk: count('SELECT COUNT(*) FROM triple_chunks WHERE chunk_id NOT IN (SELECT id FROM chunks)'),
      triplesWithoutEntity: count(
        'SELECT COUNT(*) FROM triples WHERE source_id NOT IN (SELECT id FROM entities) OR target_id NOT IN (SELECT id FROM entities)',
      ),
      aliasesWithoutEntity: count(
        'SELECT COUNT(*) FROM entity_aliases WHERE entity_id NOT IN (SELECT id FROM entities)',
      ),
      ftsChunkWithoutChunk: count('SELECT COUNT(*) FROM fts_chunk WHERE rowid NOT IN (SELECT id FROM chunks)'),
      ftsChunkOriginalWithoutChunk: count(
        'SELECT COUNT(*) FROM fts_chunk_original WHERE rowid NOT IN (SELECT id FROM chunks)',
      ),
      ftsTripleWithoutTriple: count('SELECT COUNT(*) FROM fts_triple WHERE rowid NOT IN (SELECT id FROM triples)'),
      ftsEntityWithoutEntity: count('SELECT COUNT(*) FROM fts_entity WHERE rowid NOT IN (SELECT id FROM entities)'),
      entitiesWithoutFts: count('SELECT COUNT(*) FROM entities WHERE id NOT IN (SELECT rowid FROM fts_entity)'),
      documentCountsWrong:
        count(`SELECT COUNT(*) FROM documents d WHERE d.chunk_count <> (SELECT COUNT(*) FROM chunks WHERE document_id = d.id)
        OR d.triple_count <> (SELECT COUNT(DISTINCT tc.triple_id) FROM triple_chunks tc JOIN chunks c ON c.id = tc.chunk_id WHERE c.document_id = d.id)`),
      foreignKeyViolations: (db.pragma('foreign_key_check') as unknown[]).length,
      integrityProblems: db.pragma('integrity_check', { simple: true }) === 'ok' ? 0 : 1,
    };
    const owners = {
      chunk: 'chunks',
      chunk_original: 'chunks',
      entity_name: 'entities',
      entity_summary: 'entities',
      triple: 'triples',
      passage: 'passages',
    };
    for (const [kind, owner] of Object.entries(owners)) {
      report[`vec_${kind}WithoutOwner`] = count(
        `SELECT COUNT(*) FROM vec_${kind} WHERE id NOT IN (SELECT id FROM ${owner})`,
      );
      report[`vcode_${kind}WithoutOwner`] = count(
        `SELECT COUNT(*) FROM vcode_${kind} WHERE id NOT IN (SELECT id FROM ${owner})`,
      );
      report[`vec_${kind}Unpaired`] = count(
        `SELECT (SELECT COUNT(*) FROM vec_${kind} WHERE id NOT IN (SELECT id FROM vcode_${kind})) + (SELECT COUNT(*) FROM vcode_${kind} WHERE id NOT IN (SELECT id FROM vec_${kind}))`,
      );
    }
    return report;
  } finally {
    db.close();
  }
}

export function expectNoOrphans(report: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(report).filter(([, n]) => n !== 0));
}

export { seededRandom };

/**
 * A fresh KB for each test of the enclosing describe (created in beforeEach, closed and its folder
 * removed in afterEach): `t.kb` is the current test's, `t.dir` the folder it lies in. `setup` runs
 * on each new KB.
 */
export function useTempKb(setup?: (kb: KnowledgeBase) => void): { readonly kb: KnowledgeBase; readonly dir: string } {
  let current: { kb: KnowledgeBase; dir: string; cleanup: () => void } | undefined;
  const now = (): NonNullable<typeof current> => {
    if (!current) throw new Error('useTempKb: no test is running');
    return current;
  };
  beforeEach(() => {
    const { dir, cleanup } = tempDir();
    current = { kb: createKb(dir), dir, cleanup };
    setup?.(current.kb);
  });
  afterEach(() => {
    current?.kb.close();
    current?.cleanup();
    current = undefined;
  });
  return {
    get kb(): KnowledgeBase {
      return now().kb;
    },
    get dir(): string {
      return now().dir;
    },
  };
}

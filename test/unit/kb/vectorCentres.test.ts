import { copyFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KnowledgeBase } from '../../../src-main/engine/kb/KnowledgeBase.js';
import { addDoc, anisotropicVectors, createKb, tempDir } from './kbFixtures.js';
import { downgradeToV14, plainSignCodes, recentreInSteps, storedCodes } from './vectorCentreFixtures.js';

/** Mean recall@10 of the approximate search against the exact one over `queries`. */
function recallAt10(kb: KnowledgeBase, kind: 'chunk' | 'entity_name', queries: readonly Float32Array[]): number {
  let recall = 0;
  for (const query of queries) {
    const exact = kb.vectors.knn(kind, query, 10, { exact: true }).map((r) => r.id);
    const found = new Set(kb.vectors.knn(kind, query, 10).map((r) => r.id));
    recall += exact.filter((id) => found.has(id)).length / 10;
  }
  return recall / queries.length;
}

function meanCosine(vectors: readonly Float32Array[]): number {
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i + 1 < vectors.length; i += 2) {
    const [a, b] = [vectors[i]!, vectors[i + 1]!];
    for (let d = 0; d < a.length; d++) sum += a[d]! * b[d]!;
    pairs++;
  }
  return sum / pairs;
}

describe('centred sign-bit codes', () => {
  let cleanup: () => void;
  let kb: KnowledgeBase;
  const dimension = 384;
  beforeEach(() => {
    let dir: string;
    ({ dir, cleanup } = tempDir());
    kb = createKb(dir);
    kb.vectors.setEmbedder('test-384', dimension);
  });
  afterEach(() => {
    kb.close();
    cleanup();
  });

  function entities(n: number): number[] {
    return kb.transaction(() => Array.from({ length: n }, (_, i) => kb.graph.upsertEntity(`e${i}`, 't')));
  }

  it('keeps recall@10 ≥ 0.95 on anisotropic vectors (mean cosine ~0.78), past the Hamming first stage', () => {
    // 24k: more than the 20k codes above which BinaryIndex's 128-bit first stage cuts candidates.
    const sample = anisotropicVectors({ dimension, clusters: 200, spread: 1.7, seed: 7, meanCosine: 0.78 });
    const ids = entities(24_000);
    const vectors = ids.map(() => sample());
    expect(meanCosine(vectors)).toBeGreaterThan(0.75); // the data is as anisotropic as e5's
    kb.vectors.putVectors(
      'entity_name',
      ids.map((id, i) => ({ id, vector: vectors[i]! })),
    );
    // Too large to recode within the write: the upgrade job's batches do it.
    expect(storedCodes(kb.file, 'entity_name')).toMatchObject({ centre: null, centredAt: 0 });
    expect(kb.vectors.recentrePending('entity_name')).toBe(true);
    expect(recentreInSteps(kb, 'entity_name', 4096)).toBe(12); // 6 batches for the mean, 6 for the codes
    expect(kb.vectors.recentrePending('entity_name')).toBe(false);
    const queries = Array.from({ length: 30 }, sample);
    expect(recallAt10(kb, 'entity_name', queries)).toBeGreaterThanOrEqual(0.95);
    const { centre, centredAt, consistent } = storedCodes(kb.file, 'entity_name');
    expect(centredAt).toBe(24_000);
    expect(consistent).toBe(true);
    // The centre is the mean: its cosine with the shared direction's vectors is ~√0.78.
    expect(Math.hypot(...centre!)).toBeGreaterThan(0.85);
  });

  it('recentres when the count has doubled since the last centring, and not between', () => {
    const sample = anisotropicVectors({ dimension, clusters: 10, spread: 1, seed: 8, meanCosine: 0.78 });
    const chunkIds = addDoc(kb, '/a', ...Array.from({ length: 300 }, (_, i) => `chunk ${i}`)).chunkIds;
    const put = (from: number, to: number): void =>
      kb.vectors.putVectors(
        'chunk',
        chunkIds.slice(from, to).map((id) => ({ id, vector: sample() })),
      );
    put(0, 63);
    expect(storedCodes(kb.file, 'chunk')).toMatchObject({ centre: null, centredAt: 0, consistent: true });
    kb.vectors.knn('chunk', sample(), 5); // a search below 64 vectors does not centre either
    put(63, 64);
    const at64 = storedCodes(kb.file, 'chunk');
    expect(at64).toMatchObject({ centredAt: 64, consistent: true });
    kb.vectors.knn('chunk', sample(), 5); // loads the index around the centre
    put(64, 127);
    expect(storedCodes(kb.file, 'chunk')).toMatchObject({ centre: at64.centre, centredAt: 64, consistent: true });
    // Replacing vectors does not grow the count.
    put(0, 100);
    expect(storedCodes(kb.file, 'chunk').centredAt).toBe(64);
    put(127, 128);
    const at128 = storedCodes(kb.file, 'chunk');
    expect(at128).toMatchObject({ centredAt: 128, consistent: true });
    expect(at128.centre).not.toEqual(at64.centre);
    // The loaded index follows the recode: each stored vector is its own nearest.
    const probe = sample();
    kb.vectors.putVectors('chunk', [{ id: chunkIds[5]!, vector: probe }]);
    expect(kb.vectors.knn('chunk', probe, 1)[0]?.id).toBe(chunkIds[5]);
    // Another embedder's vectors start from a zero centre again.
    kb.vectors.setEmbedder('another', dimension);
    expect(storedCodes(kb.file, 'chunk')).toMatchObject({ centre: null, centredAt: 0, count: 0 });
  });

  it('leaves the old centre and codes when a recode is interrupted', () => {
    const sample = anisotropicVectors({ dimension, clusters: 10, spread: 1, seed: 9, meanCosine: 0.78 });
    const chunkIds = addDoc(kb, '/a', ...Array.from({ length: 200 }, (_, i) => `chunk ${i}`)).chunkIds;
    kb.vectors.putVectors(
      'chunk',
      chunkIds.slice(0, 100).map((id) => ({ id, vector: sample() })),
    );
    const before = storedCodes(kb.file, 'chunk');
    expect(before).toMatchObject({ centredAt: 100, consistent: true });
    // The recode rewrites codes in id order; this one fails a quarter of the way, as a kill would stop it.
    const stopRecode = `CREATE TRIGGER stop_recode BEFORE UPDATE ON vcode_chunk WHEN NEW.id = ${chunkIds[50]} BEGIN SELECT RAISE(ABORT, 'stopped'); END`;
    const raw = new Database(kb.file);
    raw.exec(stopRecode);
    raw.close();
    expect(() =>
      kb.vectors.putVectors(
        'chunk',
        chunkIds.slice(100, 200).map((id) => ({ id, vector: sample() })),
      ),
    ).toThrow('stopped');
    expect(storedCodes(kb.file, 'chunk')).toEqual(before);
    // The same on a search's recode (as a KB from before centring gets): the search still answers.
    const fix = new Database(kb.file);
    fix.exec(`DROP TRIGGER stop_recode; UPDATE vector_state SET centre = NULL, centred_at = 0 WHERE kind = 'chunk'`);
    plainSignCodes(fix, 'chunk');
    fix.exec(stopRecode);
    expect(kb.vectors.knn('chunk', sample(), 150)).toHaveLength(100); // the rollback above dropped the loaded index
    expect(storedCodes(kb.file, 'chunk')).toEqual({ ...before, centre: null, centredAt: 0 });
    fix.exec('DROP TRIGGER stop_recode');
    fix.close();
    const probe = sample();
    kb.vectors.putVectors('chunk', [{ id: chunkIds[7]!, vector: probe }]);
    expect(kb.vectors.knn('chunk', probe, 1)[0]?.id).toBe(chunkIds[7]);
  });

  it('recentres a small KB whose codes predate centring on its first search, keeping recall', () => {
    const sample = anisotropicVectors({ dimension, clusters: 200, spread: 1.7, seed: 10, meanCosine: 0.78 });
    const chunkIds = addDoc(kb, '/a', ...Array.from({ length: 3000 }, (_, i) => `chunk ${i}`)).chunkIds;
    kb.vectors.putVectors(
      'chunk',
      chunkIds.map((id) => ({ id, vector: sample() })),
    );
    const file = kb.file;
    kb.close();
    downgradeToV14(file, ['chunk']);

    kb = KnowledgeBase.open(file);
    expect(storedCodes(file, 'chunk')).toMatchObject({ centre: null, centredAt: 0, consistent: true });
    // A read-only connection searches the codes as they are and writes nothing.
    const reader = KnowledgeBase.open(file, { readonly: true });
    try {
      expect(reader.vectors.knn('chunk', sample(), 10)).toHaveLength(10);
    } finally {
      reader.close();
    }
    expect(storedCodes(file, 'chunk')).toMatchObject({ centre: null, centredAt: 0 });
    const queries = Array.from({ length: 20 }, sample);
    expect(recallAt10(kb, 'chunk', queries)).toBeGreaterThanOrEqual(0.95);
    expect(storedCodes(file, 'chunk')).toMatchObject({ centredAt: 3000, consistent: true });
  });

  describe('a large KB whose codes predate centring (staged recentre)', () => {
    // More than a search or write recodes at once (RECENTRE_AT_ONCE_UNTIL, 4096).
    const count = 5000;
    let sample: () => Float32Array;
    let chunkIds: number[];
    beforeEach(() => {
      sample = anisotropicVectors({ dimension, clusters: 200, spread: 1.7, seed: 11, meanCosine: 0.78 });
      chunkIds = addDoc(kb, '/a', ...Array.from({ length: count + 1 }, (_, i) => `chunk ${i}`)).chunkIds;
      kb.vectors.putVectors(
        'chunk',
        chunkIds.slice(0, count).map((id) => ({ id, vector: sample() })),
      );
      const file = kb.file;
      kb.close();
      downgradeToV14(file, ['chunk']);
      kb = KnowledgeBase.open(file);
    });

    it('searches with the old codes until the switch, finding the same neighbours midway, then with the new centre', () => {
      const queries = Array.from({ length: 20 }, sample);
      const neighbours = (): number[][] => queries.map((q) => kb.vectors.knn('chunk', q, 10).map((r) => r.id));
      const before = neighbours();
      // The first search did not recode: that is the job's.
      expect(storedCodes(kb.file, 'chunk')).toMatchObject({ centre: null, centredAt: 0, consistent: true });
      expect(kb.vectors.recentrePending('chunk')).toBe(true);
      for (let i = 0; i < 8; i++) expect(kb.vectors.recentreStep('chunk', 1000).finished).toBe(false);
      // Midway through the codes: the live ones are untouched, and so are the answers.
      expect(storedCodes(kb.file, 'chunk')).toMatchObject({ centre: null, centredAt: 0, consistent: true });
      expect(neighbours()).toEqual(before);
      // Vectors written meanwhile, before and after the batches' position, are coded for both
      // centres, and found after the switch.
      const [probe, added] = [sample(), sample()];
      kb.vectors.putVectors('chunk', [
        { id: chunkIds[3]!, vector: probe },
        { id: chunkIds[count]!, vector: added },
      ]);
      expect(recentreInSteps(kb, 'chunk', 1000)).toBe(4);
      expect(storedCodes(kb.file, 'chunk')).toMatchObject({ centredAt: count, consistent: true, count: count + 1 });
      expect(kb.vectors.knn('chunk', probe, 1)[0]?.id).toBe(chunkIds[3]);
      expect(kb.vectors.knn('chunk', added, 1)[0]?.id).toBe(chunkIds[count]);
      expect(recallAt10(kb, 'chunk', queries)).toBeGreaterThanOrEqual(0.95);
      expect(kb.vectors.recentrePending('chunk')).toBe(false);
    });

    it('ends with the same centre and codes when stopped midway and resumed on a reopened KB', () => {
      const file = kb.file;
      kb.close();
      const copy = `${file}.copy`;
      copyFileSync(file, copy);
      const other = KnowledgeBase.open(copy);
      try {
        recentreInSteps(other, 'chunk', 700);
      } finally {
        other.close();
      }
      kb = KnowledgeBase.open(file);
      for (let i = 0; i < 10; i++) kb.vectors.recentreStep('chunk', 700);
      // A batch cut by a kill rolls back whole (its transaction): the next run redoes it.
      const raw = new Database(file);
      raw.exec(`CREATE TRIGGER stop_recode BEFORE UPDATE ON vcode_chunk BEGIN SELECT RAISE(ABORT, 'stopped'); END`);
      expect(() => kb.vectors.recentreStep('chunk', 700)).toThrow('stopped');
      raw.exec('DROP TRIGGER stop_recode');
      raw.close();
      kb.close();
      kb = KnowledgeBase.open(file);
      expect(storedCodes(file, 'chunk')).toMatchObject({ centre: null, centredAt: 0 });
      recentreInSteps(kb, 'chunk', 700);
      const resumed = storedCodes(file, 'chunk');
      const whole = storedCodes(copy, 'chunk');
      expect(resumed).toMatchObject({ centredAt: count, consistent: true });
      expect(resumed).toEqual(whole);
    });
  });
});

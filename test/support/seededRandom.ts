import { Prng } from '../../src-main/engine/eval/stats/Prng.js';

/** Deterministic PRNG in [0, 1) (the engine's mulberry32), so generated fixtures and fuzz cases reproduce. */
export function seededRandom(seed: number): () => number {
  const prng = new Prng(seed);
  return () => prng.next();
}

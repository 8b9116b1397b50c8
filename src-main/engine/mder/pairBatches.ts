import type { CandidatePair } from './disambiguationTypes.js';

/**
 * Disambiguate's pairs cut into calls of `perCall`, the pairs that share entities next to each
 * other (connected pairs in breadth-first order, each connected group after the one before): a
 * call writes each of its entities and their excerpt once, so the fewer distinct entities a call
 * holds the fewer tokens it costs. Candidates come out entity by entity, three at most each, so
 * in their own order an entity's neighbours' pairs are often in another call and its excerpt is
 * sent twice.
 */
export function pairBatches(pairs: readonly CandidatePair[], perCall: number): CandidatePair[][] {
  const byEntity = new Map<number, number[]>();
  pairs.forEach((p, i) => {
    for (const id of [p.a.id, p.b.id]) byEntity.set(id, [...(byEntity.get(id) ?? []), i]);
  });
  const placed = new Set<number>();
  const ordered: CandidatePair[] = [];
  for (const [start] of pairs.entries()) {
    if (placed.has(start)) continue;
    placed.add(start);
    const queue = [start];
    for (let q = 0; q < queue.length; q++) {
      const pair = pairs[queue[q]!]!;
      ordered.push(pair);
      for (const id of [pair.a.id, pair.b.id])
        for (const j of byEntity.get(id)!) {
          if (placed.has(j)) continue;
          placed.add(j);
          queue.push(j);
        }
    }
  }
  const batches: CandidatePair[][] = [];
  for (let i = 0; i < ordered.length; i += perCall) batches.push(ordered.slice(i, i + perCall));
  return batches;
}

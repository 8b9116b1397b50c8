import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import { nameKey } from '../../../src-main/engine/mder/names.js';

/** How well Disambiguate joined the names a bench knows to be one thing, and what it joined wrongly. */
export interface MergeRecall {
  /** Gold pairs whose two names both became entities (the others were never extracted). */
  expected: number;
  /** Of those, pairs that ended as one entity (name or alias of the same one). */
  merged: number;
  recall: number;
  /** Names joined into an entity whose own name belongs to no gold group with them (wrong merges). */
  wrong: number;
}

/**
 * Merge recall against gold groups (each a list of names of one thing): a cheaper Disambiguate
 * plan must not hide a worse graph. Printed beside the cost by `npm run bench indexing`.
 */
export function mergeRecall(kb: KnowledgeBase, gold: readonly (readonly string[])[]): MergeRecall {
  let expected = 0;
  let merged = 0;
  const groupOf = new Map<string, number>();
  gold.forEach((names, g) => names.forEach((n) => groupOf.set(nameKey(n), g)));
  for (const names of gold) {
    for (let i = 0; i < names.length; i++) {
      for (let j = i + 1; j < names.length; j++) {
        const a = kb.graph.findEntityByName(names[i]!);
        const b = kb.graph.findEntityByName(names[j]!);
        if (!a || !b) continue;
        expected++;
        if (a.id === b.id) merged++;
      }
    }
  }
  let wrong = 0;
  for (const e of kb.graph.iterateEntities()) {
    const own = groupOf.get(nameKey(e.name));
    for (const alias of e.aliases) if (own === undefined || groupOf.get(nameKey(alias)) !== own) wrong++;
  }
  return { expected, merged, recall: expected === 0 ? Number.NaN : merged / expected, wrong };
}

/** One report line: `merge recall 0.93 (41 of 44 gold pairs), 2 wrong merges`. */
export function formatMergeRecall(r: MergeRecall): string {
  return `merge recall ${r.recall.toFixed(2)} (${r.merged} of ${r.expected} gold pairs), ${r.wrong} wrong merges`;
}

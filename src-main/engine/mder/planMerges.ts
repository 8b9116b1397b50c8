import { nameKey } from './names.js';
import { compatibleTypes } from './entityTypes.js';
import {
  idPair,
  type CandidatePair,
  type Confirmed,
  type DisambiguationEntity,
  type MergeGroup,
} from './disambiguationTypes.js';

/** A chain of verdicts joining more entities than this is not checked pair by pair: only its confirmed cliques merge. */
const MAX_CHAIN = 12;

/** The pairs of each chain of confirmed pairs (a cluster of three or more) that no decision covers yet. */
export function chainPairs(confirmed: readonly Confirmed[], decided: ReadonlySet<string>): CandidatePair[] {
  const links = new Map<number, Set<number>>();
  const byId = new Map<number, DisambiguationEntity>();
  for (const c of confirmed) {
    for (const [x, y] of [
      [c.a, c.b],
      [c.b, c.a],
    ] as const) {
      links.set(x.id, (links.get(x.id) ?? new Set()).add(y.id));
      byId.set(x.id, x);
    }
  }
  const out: CandidatePair[] = [];
  const seen = new Set<number>();
  for (const start of links.keys()) {
    if (seen.has(start)) continue;
    const cluster = [start];
    seen.add(start);
    for (let i = 0; i < cluster.length; i++) {
      for (const next of links.get(cluster[i]!)!) if (!seen.has(next) && seen.add(next)) cluster.push(next);
    }
    if (cluster.length < 3 || cluster.length > MAX_CHAIN) continue;
    cluster.sort((x, y) => x - y);
    for (const [i, x] of cluster.entries()) {
      for (const y of cluster.slice(i + 1)) {
        const [a, b] = [byId.get(x)!, byId.get(y)!];
        if (decided.has(idPair(x, y)) || !compatibleTypes(a.type, b.type)) continue;
        out.push({ a, b, evidence: ['each was judged the same as a third name in this round'] });
      }
    }
  }
  return out;
}

/**
 * Groups of confirmed pairs, as cliques: two groups join on a confirmed pair only when every pair
 * across them is confirmed and of compatible types, so one wrong verdict cannot chain unrelated
 * entities together (A~B and B~C without A~C stay two merges at most). Each group's canonical name
 * is the one proposed most often for it; ties go to the name its members use most (the facts of
 * the members named so: the established form beats a variant one reply kept as written), then
 * the shorter, then alphabetical. The member already named so is kept, else the oldest.
 */
export function planMerges(confirmed: readonly Confirmed[]): MergeGroup[] {
  const byId = new Map<number, DisambiguationEntity>();
  const agreed = new Set(confirmed.map((c) => idPair(c.a.id, c.b.id)));
  const groupOf = new Map<number, number[]>();
  for (const c of confirmed) {
    byId.set(c.a.id, c.a);
    byId.set(c.b.id, c.b);
    const x = groupOf.get(c.a.id) ?? [c.a.id];
    const y = groupOf.get(c.b.id) ?? [c.b.id];
    if (x === y) continue;
    const fits = (i: number, j: number) =>
      agreed.has(idPair(i, j)) && compatibleTypes(byId.get(i)!.type, byId.get(j)!.type);
    if (!x.every((i) => y.every((j) => fits(i, j)))) continue;
    const joined = [...x, ...y];
    for (const id of joined) groupOf.set(id, joined);
  }
  const groups = [...new Set(groupOf.values())].filter((g) => g.length > 1).map((g) => [...g].sort((a, b) => a - b));
  return groups
    .sort((a, b) => a[0]! - b[0]!)
    .map((ids) => {
      const members = ids.map((id) => byId.get(id)!);
      const inGroup = new Set(ids);
      const votes = new Map<string, { name: string; count: number }>();
      for (const c of confirmed) {
        if (!inGroup.has(c.a.id) || !inGroup.has(c.b.id)) continue;
        const key = nameKey(c.canonical);
        votes.set(key, { name: votes.get(key)?.name ?? c.canonical, count: (votes.get(key)?.count ?? 0) + 1 });
      }
      const use = (key: string) =>
        members
          .filter((m) => nameKey(m.name) === key || (m.aliases ?? []).some((a) => nameKey(a) === key))
          .reduce((sum, m) => sum + 1 + (m.facts ?? 0), 0);
      const [best] = [...votes.entries()].sort(
        ([ka, a], [kb, b]) =>
          b.count - a.count || use(kb) - use(ka) || a.name.length - b.name.length || a.name.localeCompare(b.name),
      );
      const canonicalName = best![1].name;
      const keep = members.find((m) => nameKey(m.name) === nameKey(canonicalName)) ?? members[0]!;
      return { keepId: keep.id, mergeIds: ids.filter((id) => id !== keep.id), canonicalName };
    });
}

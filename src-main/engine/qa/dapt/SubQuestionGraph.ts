import { PolyhopError } from '../../base/errors.js';

/** A sub-question as the decomposition prompt returns it: `dependsOn` names the sub-questions whose answers it needs. */
export interface SubQuestion {
  id: string;
  question: string;
  dependsOn: string[];
}

/** A node of the fused graph: a source-language sub-question, an English one, or both (bilingual). */
export interface FusedNode {
  id: string;
  source: string | null;
  english: string | null;
  dependsOn: string[];
}

export interface Fusion {
  sourceId: string;
  englishId: string;
  similarity: number;
}

/**
 * Checks a decomposition: non-empty, unique ids, known dependencies, no self-loop, acyclic, at most
 * `maxNodes`. Throws `LLM_OUTPUT_INVALID` naming the fault (the strategy then falls back).
 */
export function validateSubQuestions(nodes: readonly SubQuestion[], maxNodes: number): SubQuestion[] {
  const fail = (reason: string, details: Record<string, unknown> = {}): never => {
    throw new PolyhopError('LLM_OUTPUT_INVALID', `qa/dapt: sub-question graph rejected: ${reason}`, {
      details: { ...details, nodes },
    });
  };
  if (nodes.length === 0) fail('no sub-questions');
  if (nodes.length > maxNodes) fail(`${nodes.length} sub-questions, more than ${maxNodes}`);
  const ids = new Set<string>();
  for (const n of nodes) {
    if (!n.question.trim()) fail(`node ${n.id} has no question`);
    if (ids.has(n.id)) fail(`duplicate id ${n.id}`);
    ids.add(n.id);
  }
  for (const n of nodes) {
    for (const d of n.dependsOn) {
      if (d === n.id) fail(`node ${n.id} depends on itself`);
      if (!ids.has(d)) fail(`node ${n.id} depends on unknown node ${d}`);
    }
  }
  const order = tryTopologicalOrder(nodes);
  if (!order.ok) fail(`cycle among ${order.cyclic.join(', ')}`, { cyclic: order.cyclic });
  return nodes.map((n) => ({ id: n.id, question: n.question.trim(), dependsOn: [...new Set(n.dependsOn)] }));
}

/**
 * Fuses the two graphs (DaPT 2.2): repeatedly take the cross-graph pair of highest similarity; if
 * it reaches `tau`, the source node becomes bilingual (it takes the English question), edges to and
 * from the English node are redirected to it and the English node is removed. A node fuses at most
 * once, and a pair whose fusion would close a cycle is skipped. `similarity[i][j]` compares source
 * node i with English node j. Node ids become `s:<id>` and `e:<id>`.
 */
export function fuseGraphs(
  source: readonly SubQuestion[],
  english: readonly SubQuestion[],
  similarity: readonly (readonly number[])[],
  tau: number,
): { nodes: FusedNode[]; fusions: Fusion[] } {
  const nodes = new Map<string, FusedNode>();
  for (const n of source)
    nodes.set(`s:${n.id}`, {
      id: `s:${n.id}`,
      source: n.question,
      english: null,
      dependsOn: n.dependsOn.map((d) => `s:${d}`),
    });
  for (const n of english)
    nodes.set(`e:${n.id}`, {
      id: `e:${n.id}`,
      source: null,
      english: n.question,
      dependsOn: n.dependsOn.map((d) => `e:${d}`),
    });

  const pairs: { i: number; j: number; sim: number }[] = [];
  for (const [i, row] of similarity.entries())
    for (const [j, sim] of row.entries()) if (sim >= tau) pairs.push({ i, j, sim });
  pairs.sort((a, b) => b.sim - a.sim || a.i - b.i || a.j - b.j);

  const fusions: Fusion[] = [];
  const usedSource = new Set<number>();
  const usedEnglish = new Set<number>();
  for (const { i, j, sim } of pairs) {
    if (usedSource.has(i) || usedEnglish.has(j)) continue;
    const s = source[i];
    const e = english[j];
    if (!s || !e) continue;
    const candidate = redirect(nodes, `s:${s.id}`, `e:${e.id}`);
    if (!tryTopologicalOrder([...candidate.values()]).ok) continue;
    nodes.clear();
    for (const [k, v] of candidate) nodes.set(k, v);
    usedSource.add(i);
    usedEnglish.add(j);
    fusions.push({ sourceId: s.id, englishId: e.id, similarity: sim });
  }
  return { nodes: [...nodes.values()], fusions };
}

/** A copy of the graph with `removeId` merged into `keepId`. */
function redirect(nodes: ReadonlyMap<string, FusedNode>, keepId: string, removeId: string): Map<string, FusedNode> {
  const removed = nodes.get(removeId);
  const out = new Map<string, FusedNode>();
  for (const [id, n] of nodes) {
    if (id === removeId) continue;
    let deps = n.dependsOn.map((d) => (d === removeId ? keepId : d));
    let english = n.english;
    if (id === keepId && removed) {
      deps = [...deps, ...removed.dependsOn];
      english = removed.english;
    }
    out.set(id, { ...n, english, dependsOn: [...new Set(deps)].filter((d) => d !== id) });
  }
  return out;
}

/** Kahn's algorithm; among ready nodes the earliest in input order goes first, so the order is deterministic. */
export function topologicalOrder<N extends { id: string; dependsOn: readonly string[] }>(nodes: readonly N[]): N[] {
  const result = tryTopologicalOrder(nodes);
  if (!result.ok)
    throw new PolyhopError('LLM_OUTPUT_INVALID', `qa/dapt: cycle among ${result.cyclic.join(', ')}`, {
      details: { cyclic: result.cyclic },
    });
  return result.order;
}

function tryTopologicalOrder<N extends { id: string; dependsOn: readonly string[] }>(
  nodes: readonly N[],
): { ok: true; order: N[] } | { ok: false; cyclic: string[] } {
  const ids = new Set(nodes.map((n) => n.id));
  const pending = new Map(nodes.map((n) => [n.id, new Set(n.dependsOn.filter((d) => ids.has(d)))]));
  const order: N[] = [];
  const done = new Set<string>();
  while (order.length < nodes.length) {
    const next = nodes.find((n) => !done.has(n.id) && [...(pending.get(n.id) ?? [])].every((d) => done.has(d)));
    if (!next) return { ok: false, cyclic: nodes.filter((n) => !done.has(n.id)).map((n) => n.id) };
    done.add(next.id);
    order.push(next);
  }
  return { ok: true, order };
}

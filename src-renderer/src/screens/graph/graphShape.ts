/** The neighbourhood's shape on screen; apart from sigma, so the screen can describe it without loading sigma. */
import type { GraphView } from '../../../api/index.js';

/** Up to this many edges every edge is drawn, as an arrow; above it only tree edges, as lines. */
export const RICH_EDGE_LIMIT = 1000;

/**
 * Concentric layout: the centre entity in the middle, hop h on ring h. Deterministic and O(n),
 * so 5,000 nodes lay out instantly (no force layout package is installed).
 */
export function concentricPositions(view: GraphView): Map<number, { x: number; y: number }> {
  const rings = new Map<number, number[]>();
  for (const n of view.nodes) {
    const ring = rings.get(n.hop);
    if (ring) ring.push(n.id);
    else rings.set(n.hop, [n.id]);
  }
  const positions = new Map<number, { x: number; y: number }>();
  for (const [hop, ids] of rings) {
    ids.forEach((id, i) => {
      const angle = (2 * Math.PI * i) / ids.length + hop * 0.3;
      const radius = hop === 0 && ids.length === 1 ? 0 : hop + 0.5;
      positions.set(id, { x: radius * Math.cos(angle), y: radius * Math.sin(angle) });
    });
  }
  return positions;
}

/**
 * The edges to draw. Up to `limit`, all of them. Above it, a spanning tree of the rings: for each
 * entity, the first edge (either direction) that links it to an entity one hop closer to the
 * centre. Every drawn node stays connected to the centre, and the number of edges is at most the
 * number of nodes less one, whatever the density between rings.
 */
export function drawnEdges(view: GraphView, limit = RICH_EDGE_LIMIT): GraphView['edges'] {
  if (view.edges.length <= limit) return view.edges;
  const hop = new Map(view.nodes.map((n) => [n.id, n.hop]));
  const linked = new Set<number>();
  const tree: GraphView['edges'] = [];
  for (const e of view.edges) {
    const hs = hop.get(e.source);
    const ht = hop.get(e.target);
    if (hs === undefined || ht === undefined || Math.abs(hs - ht) !== 1) continue;
    const child = hs > ht ? e.source : e.target;
    if (linked.has(child)) continue;
    linked.add(child);
    tree.push(e);
  }
  return tree;
}

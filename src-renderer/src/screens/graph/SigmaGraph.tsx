import Graph from 'graphology';
import { useEffect, useRef, useState } from 'react';
import Sigma from 'sigma';
import type { GraphView } from '../../../api/index.js';

const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

function colourOf(type: string): string {
  let h = 0;
  for (let i = 0; i < type.length; i++) h = (h * 31 + type.charCodeAt(i)) >>> 0;
  return PALETTE[h % PALETTE.length]!;
}

/**
 * Concentric layout: the centre entity in the middle, hop h on ring h. Deterministic and O(n),
 * so 5,000 nodes lay out instantly (no force layout package is installed).
 */
export function concentricPositions(view: GraphView): Map<number, { x: number; y: number }> {
  const rings = new Map<number, number[]>();
  for (const n of view.nodes) rings.set(n.hop, [...(rings.get(n.hop) ?? []), n.id]);
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

/** The neighbourhood drawn with sigma (WebGL); clicking a node selects that entity. */
export default function SigmaGraph({ view, centerId, onSelect, label, onUnavailable }: { view: GraphView; centerId: number; onSelect: (id: number) => void; label: string; onUnavailable: (reason: string) => void }) {
  const container = useRef<HTMLDivElement>(null);
  const select = useRef(onSelect);
  select.current = onSelect;
  const [ready, setReady] = useState(false);

  useEffect(() => {
    const el = container.current;
    if (!el) return;
    const graph = new Graph({ multi: true, type: 'directed' });
    const positions = concentricPositions(view);
    for (const n of view.nodes) {
      const p = positions.get(n.id)!;
      graph.addNode(String(n.id), { label: n.name, x: p.x, y: p.y, size: n.id === centerId ? 12 : n.hop === 1 ? 7 : 4, color: colourOf(n.type) });
    }
    for (const e of view.edges) {
      if (graph.hasNode(String(e.source)) && graph.hasNode(String(e.target))) {
        graph.addDirectedEdgeWithKey(String(e.id), String(e.source), String(e.target), { label: e.relation, size: 1 });
      }
    }
    const style = getComputedStyle(document.documentElement);
    let renderer: Sigma | null = null;
    try {
      renderer = new Sigma(graph, el, {
        renderEdgeLabels: view.edges.length <= 300,
        labelColor: { color: style.getPropertyValue('--fg').trim() || '#222' },
        edgeLabelColor: { color: style.getPropertyValue('--muted').trim() || '#666' },
        defaultEdgeColor: style.getPropertyValue('--border').trim() || '#bbb',
        defaultEdgeType: 'arrow',
        stagePadding: 60, // room for labels of nodes on the outer ring
      });
      renderer.on('clickNode', ({ node }) => select.current(Number(node)));
      renderer.on('enterNode', () => (el.style.cursor = 'pointer'));
      renderer.on('leaveNode', () => (el.style.cursor = ''));
      setReady(true);
    } catch (error) {
      onUnavailable(error instanceof Error ? error.message : String(error));
    }
    return () => renderer?.kill();
  }, [view, centerId, onUnavailable]);

  return <div ref={container} className="sigma-container" role="img" aria-label={label} data-testid="graph-canvas" data-ready={ready} />;
}

import Graph from 'graphology';
import { useEffect, useRef, useState } from 'react';
import Sigma from 'sigma';
import type { Settings } from 'sigma/settings';
import type { MouseCoords } from 'sigma/types';
import { EdgeLineProgram, NodePointProgram } from 'sigma/rendering';
import type { GraphView } from '../../../api/index.js';
import { concentricPositions, RICH_EDGE_LIMIT } from './graphShape.js';

const PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#e15759',
  '#76b7b2',
  '#59a14f',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
];

function colourOf(type: string): string {
  let h = 0;
  for (let i = 0; i < type.length; i++) h = (h * 31 + type.charCodeAt(i)) >>> 0;
  return PALETTE[h % PALETTE.length]!;
}

/** Edge labels are readable (and cheap) only on small graphs. */
const EDGE_LABEL_LIMIT = 300;

/**
 * Sigma's settings for a graph of this size. Small graphs get discs, arrows and edge labels. Large
 * ones (more than RICH_EDGE_LIMIT nodes or edges) are drawn with sigma's non-instanced programs,
 * point sprites for nodes and 1-pixel lines for edges: software WebGL (SwiftShader, used where no
 * GPU is available) runs instanced draws an instance at a time, and at 5,000 nodes the disc and
 * arrow programs cost it ×9 the GPU time per frame (`npm run bench graph`). Edges and labels are
 * also left out while the camera moves.
 */
function settingsFor(nodes: number, edges: number, style: CSSStyleDeclaration): Partial<Settings> {
  const large = nodes > RICH_EDGE_LIMIT || edges > RICH_EDGE_LIMIT;
  return {
    renderEdgeLabels: edges <= EDGE_LABEL_LIMIT,
    labelColor: { color: style.getPropertyValue('--fg').trim() || '#222' },
    edgeLabelColor: { color: style.getPropertyValue('--muted').trim() || '#666' },
    defaultEdgeColor: style.getPropertyValue('--border').trim() || '#bbb',
    ...(large
      ? {
          defaultNodeType: 'point',
          nodeProgramClasses: { point: NodePointProgram },
          defaultEdgeType: 'thin',
          edgeProgramClasses: { thin: EdgeLineProgram },
        }
      : { defaultEdgeType: 'arrow' }),
    hideEdgesOnMove: large,
    hideLabelsOnMove: large,
    stagePadding: 60, // room for labels of nodes on the outer ring
  };
}

/**
 * Sigma looks up the node under the pointer on every mouse event (move, wheel, button down and
 * up) by reading a pixel back from the GPU, which waits until every queued frame is drawn. Without
 * a GPU (software WebGL) those stalls, more than the drawing, make zooming and dragging a large
 * graph stutter. This view needs the lookup for clicks and hovering only, so the wheel and button
 * lookups are dropped (no wheelNode/downNode/upNode events), and hover lookups are coalesced to
 * one per animation frame, with the latest position, and skipped while the camera moves.
 */
function limitPicking(renderer: Sigma): () => void {
  const captor = renderer.getMouseCaptor();
  for (const unused of ['wheel', 'mousedown', 'mouseup', 'rightClick', 'doubleClick'] as const)
    captor.removeAllListeners(unused);
  const lookups = captor.listeners('mousemove');
  captor.removeAllListeners('mousemove');
  let latest: MouseCoords | null = null;
  let frame = 0;
  const lookUp = (): void => {
    frame = 0;
    const coords = latest;
    latest = null;
    const moving =
      captor.isMouseDown || captor.isMoving || captor.currentWheelDirection !== 0 || renderer.getCamera().isAnimated();
    if (coords && !moving) for (const lookup of lookups) lookup(coords);
  };
  captor.on('mousemove', (coords) => {
    latest = coords;
    frame ||= requestAnimationFrame(lookUp);
  });
  return () => cancelAnimationFrame(frame);
}

/** The neighbourhood drawn with sigma (WebGL); clicking a node selects that entity. */
/** `edges` are those to draw (graphShape's drawnEdges), a subset of `view.edges`. */
export default function SigmaGraph({
  view,
  edges,
  centerId,
  onSelect,
  label,
  onUnavailable,
}: {
  view: GraphView;
  edges: GraphView['edges'];
  centerId: number;
  onSelect: (id: number) => void;
  label: string;
  onUnavailable: (reason: string) => void;
}) {
  const container = useRef<HTMLDivElement>(null);
  const select = useRef(onSelect);
  select.current = onSelect;
  const [drawn, setDrawn] = useState<{ nodes: number; edges: number } | null>(null);

  useEffect(() => {
    const el = container.current;
    if (!el) return;
    const graph = new Graph({ multi: true, type: 'directed' });
    const positions = concentricPositions(view);
    for (const n of view.nodes) {
      const p = positions.get(n.id)!;
      const isCentre = n.id === centerId;
      graph.addNode(String(n.id), {
        label: n.name,
        x: p.x,
        y: p.y,
        size: isCentre ? 12 : n.hop === 1 ? 7 : 4,
        color: colourOf(n.type),
        // The centre keeps its label and its highlight ring at every zoom level.
        ...(isCentre ? { forceLabel: true, highlighted: true } : {}),
      });
    }
    for (const e of edges) {
      if (graph.hasNode(String(e.source)) && graph.hasNode(String(e.target))) {
        graph.addDirectedEdgeWithKey(String(e.id), String(e.source), String(e.target), { label: e.relation, size: 1 });
      }
    }
    let renderer: Sigma | null = null;
    let stopHover = (): void => undefined;
    try {
      renderer = new Sigma(graph, el, settingsFor(graph.order, graph.size, getComputedStyle(document.documentElement)));
      stopHover = limitPicking(renderer);
      renderer.on('clickNode', ({ node }) => select.current(Number(node)));
      renderer.on('enterNode', () => (el.style.cursor = 'pointer'));
      renderer.on('leaveNode', () => (el.style.cursor = ''));
      setDrawn({ nodes: graph.order, edges: graph.size });
    } catch (error) {
      onUnavailable(error instanceof Error ? error.message : String(error));
    }
    return () => {
      stopHover();
      renderer?.kill();
      setDrawn(null);
    };
  }, [view, edges, centerId, onUnavailable]);

  return (
    <div
      ref={container}
      className="sigma-container"
      role="img"
      aria-label={label}
      data-testid="graph-canvas"
      data-ready={drawn !== null}
      data-nodes={drawn?.nodes}
      data-edges={drawn?.edges}
    />
  );
}

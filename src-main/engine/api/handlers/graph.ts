import { PolyhopError } from '../../base/errors.js';
import { neighbourhood } from '../../kb/rdf/buildQuads.js';
import { knowledgeBaseRdfSource } from '../../kb/rdf/knowledgeBaseRdfSource.js';
import type { EntityRecord, TripleRecord } from '../../kb/types.js';
import type { EntityCard, EntitySummaryView, GraphView } from '../contract.js';
import type { Handlers } from '../dispatch.js';
import type { Engine } from '../Engine.js';
import { toTripleView } from './docs.js';

type GraphMethods = 'graph:search' | 'graph:entity' | 'graph:neighbourhood';

const CARD_TRIPLES = 500;
const CARD_CHUNKS = 20;

export function graphHandlers(engine: Engine): Pick<Handlers, GraphMethods> {
  const { kbs } = engine;
  return {
    'graph:search': ({ kb, query, type, limit }) =>
      kbs.get(kb).kb.graph.searchEntities(query, type, limit).map(toSummaryView),
    'graph:entity': ({ kb: name, id }): EntityCard => {
      const { kb } = kbs.get(name);
      const entity = kb.graph.getEntity(id);
      if (!entity) throw new PolyhopError('NOT_FOUND', `No entity ${id} in "${name}"`, { details: { id } });
      const outgoing = kb.graph.triplesOfEntity(id, 'out', CARD_TRIPLES);
      const incoming = kb.graph.triplesOfEntity(id, 'in', CARD_TRIPLES);
      const chunkIds = [...new Set([...outgoing, ...incoming].flatMap((t) => t.chunkIds))].slice(0, CARD_CHUNKS);
      const titles = new Map<number, string>();
      const sourceChunks = kb.documents.getChunks(chunkIds).map((c) => {
        if (!titles.has(c.documentId))
          titles.set(c.documentId, kb.documents.getDocument(c.documentId)?.title ?? `#${c.documentId}`);
        return {
          chunkId: c.id,
          documentId: c.documentId,
          documentTitle: titles.get(c.documentId) as string,
          text: c.text,
          page: c.page,
        };
      });
      return {
        ...toSummaryView(entity),
        aliases: entity.aliases,
        outgoing: outgoing.map(toTripleView),
        incoming: incoming.map(toTripleView),
        sourceChunks,
      };
    },
    'graph:neighbourhood': async ({ kb: name, id, hops, limit }): Promise<GraphView> => {
      const { kb } = kbs.get(name);
      // One triple over the limit tells a neighbourhood of exactly `limit` triples from a cut one.
      const found = await neighbourhood(knowledgeBaseRdfSource(kb), id, hops, limit + 1);
      const truncated = found.triples.length > limit;
      const triples = found.triples.slice(0, limit);
      const hopOf = hopsFrom(id, triples);
      const kept = new Set([id, ...triples.flatMap((t) => [t.sourceId, t.targetId])]);
      const nodes = kb.graph
        .getEntities([...kept])
        .map((e) => ({ id: e.id, name: e.name, type: e.type, hop: hopOf.get(e.id) ?? hops }));
      const edges = triples.map((t) => ({ id: t.id, source: t.sourceId, target: t.targetId, relation: t.relation }));
      return { nodes, edges, truncated };
    },
  };
}

function toSummaryView(e: EntityRecord): EntitySummaryView {
  return { id: e.id, name: e.name, type: e.type, summary: e.summary };
}

/** Hop distance of every node from `start`, over the (undirected) triples found. */
function hopsFrom(start: number, triples: readonly TripleRecord[]): Map<number, number> {
  const adjacent = new Map<number, number[]>();
  const link = (a: number, b: number): void => {
    const list = adjacent.get(a);
    if (list) list.push(b);
    else adjacent.set(a, [b]);
  };
  for (const t of triples) {
    link(t.sourceId, t.targetId);
    link(t.targetId, t.sourceId);
  }
  const hop = new Map([[start, 0]]);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i] as number;
    for (const next of adjacent.get(node) ?? []) {
      if (!hop.has(next)) {
        hop.set(next, (hop.get(node) as number) + 1);
        queue.push(next);
      }
    }
  }
  return hop;
}

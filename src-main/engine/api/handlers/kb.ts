import type { KnowledgeBase } from '../../kb/KnowledgeBase.js';
import type { KbEntry } from '../../kb/KbRegistry.js';
import type { KbInfo, KbSummary } from '../contract.js';
import type { Handlers } from '../dispatch.js';
import type { Engine } from '../Engine.js';
import { startUpgradeIfDue, upgradeDue } from '../upgradeKb.js';

type KbMethods = 'kb:list' | 'kb:create' | 'kb:info' | 'kb:rename' | 'kb:delete' | 'kb:upgrade';

export function kbHandlers(engine: Engine): Pick<Handlers, KbMethods> {
  const { kbs } = engine;
  return {
    // Listing reads each KB without opening it for use: that would start every old KB's upgrade job at once.
    'kb:list': () =>
      kbs.registry.list().flatMap((entry) => (entry.problem ? [] : [summarise(entry, kbs.registry.open(entry.name))])),
    'kb:create': (request) => {
      const { kb } = kbs.create(request);
      return summarise(kbs.registry.get(request.name), kb);
    },
    'kb:info': ({ kb: name }): KbInfo => {
      const session = kbs.get(name);
      // Showing a KB starts its RDF view loading in the background; the status says how far it is.
      void session.rdf.load().catch(() => undefined);
      const stats = session.kb.stats();
      const rdf = session.rdf.status;
      return {
        ...summarise(kbs.registry.get(name), session.kb),
        chunkCount: stats.chunks,
        relationCount: stats.relations,
        rdf: { state: rdf.state, triples: rdf.triples, ...(rdf.message ? { message: rdf.message } : {}) },
        sizeBytes: stats.sizeBytes,
        calibration: session.kb.vectors.similarityCalibration(),
      };
    },
    'kb:upgrade': ({ kb: name }) => ({ jobId: startUpgradeIfDue(engine, kbs.get(name)) }),
    // Like listing, renaming reads the KB without opening it for use (an open session takes the new name on its next use).
    'kb:rename': ({ kb: name, newName }) => {
      const entry = kbs.registry.rename(name, newName);
      return summarise(entry, kbs.registry.open(entry.name));
    },
    'kb:delete': async ({ kb: name }) => {
      engine.stores.forget(name);
      // Both start now: the watch list reads the KB's id before the registry forgets it, and no
      // await comes before the delete, so a call racing it cannot reopen the KB that goes.
      await Promise.all([engine.watches.forget(name), kbs.delete(name)]);
      return { deleted: true as const };
    },
  };
}

function summarise(entry: KbEntry, kb: KnowledgeBase): KbSummary {
  const stats = kb.stats();
  return {
    name: entry.name,
    description: entry.description,
    baseIri: entry.baseIri,
    documentCount: stats.documents,
    entityCount: stats.entities,
    tripleCount: stats.triples,
    embedder: entry.embedder,
    // Without an embedder every row waits; with one, only original-language vectors a KB indexed before they existed lacks (a cached count).
    missingVectors: kb.vectors.embedder() ? kb.vectors.countMissingOriginalVectors() : kb.vectors.countMissingVectors(),
    upgradeDue: upgradeDue(kb),
    createdAt: entry.createdAt,
  };
}

import { answerGraph } from '../qa/answerGraph.js';
import type { QaContext } from '../qa/index.js';
import type { Answer } from './contract.js';
import { updateView } from './documentChanges.js';
import type { Engine } from './Engine.js';
import type { KbSession } from './KbSessions.js';

/**
 * Files an answer as data: its PROV-O graph (qa/answerGraph.ts) stored with the history entry,
 * then added to the RDF view and, with an auto-synced external store, sent there. The graph records the settings the strategy ran with, the models'
 * identities and the cited documents' content hashes, so it can be checked after the KB changes.
 */
export async function recordAnswerGraph(
  engine: Engine,
  session: KbSession,
  entry: { historyId: number; answer: Answer; askedQuestion: string; context: QaContext | null },
): Promise<void> {
  const { kb } = session;
  const { reasoning, thresholds } = engine.settings.get();
  const graph = answerGraph(kb, kb.metadata.meta().baseIri, {
    historyId: entry.historyId,
    answer: entry.answer,
    askedQuestion: entry.askedQuestion,
    finishedAt: new Date().toISOString(),
    model: entry.answer.retrievalOnly ? null : (entry.context?.llm?.identity ?? null),
    embedder: entry.answer.strategy === 'llm-only' ? null : (entry.context?.embedder.identity ?? null),
    settings: {
      strategyParams: entry.context?.settings ?? null,
      thresholds,
      reasoning,
      answerLanguage: entry.answer.answerLanguage,
      retrievalOnly: entry.answer.retrievalOnly,
    },
  });
  kb.answers.record(entry.historyId, graph);
  await updateView(session.rdf.answersChanged([entry.historyId]));
  // A store with auto-sync gets the answer's graph too.
  engine.stores.changed(session.name);
}

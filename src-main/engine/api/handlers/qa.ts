import { PolyhopError } from '../../base/errors.js';
import { ask, resolveQaSettings, type AskOptions, type QaSettings } from '../../qa/index.js';
import { CachingLlm } from '../../models/CachingLlm.js';
import type { Answer, HistoryEntry, Settings, StrategyName } from '../contract.js';
import type { KnowledgeBase } from '../../kb/index.js';
import type { Handlers } from '../dispatch.js';
import type { Engine } from '../Engine.js';
import type { KbSession } from '../KbSessions.js';

/**
 * `qa:ask` runs as a job: the answer streams as `qa:token` events (a `reset` one starts it
 * over) and arrives whole in `job:finished`; it is kept in the KB's history. Without a generation model (or when asked),
 * the answer is retrieval-only: ranked evidence with citations.
 */
export function qaHandlers(engine: Engine): Pick<Handlers, 'qa:ask' | 'qa:history'> {
  return {
    'qa:ask': ({ kb: name, question, strategy, answerLanguage, retrievalOnly }) => {
      const session = engine.kbs.get(name);
      const jobId = engine.jobs.start('ask', session.name, async ({ jobId, signal, emit, progress }) => {
        progress({ stage: 'answer', done: 0, total: 1, message: strategy });
        const answer = await answerQuestion(
          engine,
          session,
          {
            question,
            strategy,
            retrievalOnly,
            answerLanguage: answerLanguage ?? engine.settings.get().answerLanguage ?? undefined,
          },
          {
            signal,
            onTextChunk: (text) => emit('qa:token', { jobId, text }),
            onTextRestart: () => emit('qa:token', { jobId, text: '', reset: true }),
          },
        );
        session.kb.addHistory(question, strategy, JSON.stringify(answer));
        const { llmCalls, promptTokens, completionTokens, cacheHits } = answer.usage;
        progress({
          stage: 'answer',
          done: 1,
          total: 1,
          message: strategy,
          llmCalls,
          promptTokens,
          completionTokens,
          cacheHits,
        });
        return answer;
      });
      return { jobId };
    },
    'qa:history': ({ kb: name, search, limit }): HistoryEntry[] =>
      engine.kbs
        .get(name)
        .kb.listHistory(search, limit)
        .map((h) => ({ id: h.id, askedAt: h.askedAt, answer: JSON.parse(h.answerJson) as Answer })),
  };
}

export interface QuestionRequest {
  question: string;
  strategy: StrategyName;
  retrievalOnly?: boolean;
  answerLanguage?: string | undefined;
}

/** Answers one question over a KB with the loaded models (also used by benchmarks). */
export async function answerQuestion(
  engine: Engine,
  session: KbSession,
  request: QuestionRequest,
  options: { signal: AbortSignal } & Pick<AskOptions, 'onTextChunk' | 'onTextRestart'>,
): Promise<Answer> {
  const unembedded = session.kb.embedder() === null ? session.kb.countMissingVectors() : 0;
  if (unembedded > 0 && request.strategy !== 'llm-only')
    throw vectorsMissing(session.name, request.strategy, unembedded);
  const embedder = await engine.models.requireEmbedder('Answering');
  // llm-only retrieves nothing, so it must not record an embedder for vectors the KB lacks.
  if (unembedded === 0) session.kb.assertEmbedder(embedder.identity, embedder.dimension);
  const model = request.retrievalOnly ? null : await engine.models.generation();
  return ask(
    {
      kb: session.kb,
      llm: model
        ? new CachingLlm(model, { store: session.kb.callCache, reasoning: engine.settings.get().reasoning })
        : null,
      embedder,
      prompts: engine.prompts,
      settings: qaSettingsFor(engine.settings.get(), session.kb),
    },
    request.question,
    {
      strategy: request.strategy,
      retrievalOnly: Boolean(request.retrievalOnly),
      signal: options.signal,
      ...(options.onTextChunk ? { onTextChunk: options.onTextChunk } : {}),
      ...(options.onTextRestart ? { onTextRestart: options.onTextRestart } : {}),
      ...(request.answerLanguage ? { answerLanguage: request.answerLanguage } : {}),
      ...(engine.settings.get().uiLanguage ? { uiLanguage: engine.settings.get().uiLanguage! } : {}),
    },
  );
}

/**
 * A KB with rows but no embedder recorded was imported without an embedding model: every
 * retrieving strategy ranks by vector similarity (fused with BM25), so it says what to do instead
 * of answering from nothing.
 */
function vectorsMissing(kb: string, strategy: StrategyName, rows: number): PolyhopError {
  return new PolyhopError(
    'CONFLICT',
    `"${kb}" has no vectors yet (${rows} rows; it was imported without an embedding model), and ${strategy} retrieves by vector similarity. ` +
      `Choose an embedding model (Models screen, or \`polyhop models use embedding PATH\`), then embed the knowledge base (Embed on the Corpus screen, or \`polyhop kb reembed ${kb}\`). ` +
      'Browsing, search by name, SPARQL and export work meanwhile.',
    { details: { kb, strategy, missingVectors: rows } },
  );
}

/**
 * The user's strategy parameters over the defaults; with calibrated thresholds DaPT's τ is the
 * KB's recorded fusion threshold (the paper's 0.8 while the KB has none, or when `dapt.tau` is set).
 */
export function qaSettingsFor(
  { strategyParams, thresholds }: Pick<Settings, 'strategyParams' | 'thresholds'>,
  kb: Pick<KnowledgeBase, 'similarityCalibration'>,
): QaSettings {
  const settings = resolveQaSettings(strategyParams);
  const calibration =
    thresholds === 'calibrated' && !('dapt.tau' in strategyParams) ? kb.similarityCalibration() : null;
  if (calibration) settings.dapt.tau = calibration.fusionThreshold;
  return settings;
}

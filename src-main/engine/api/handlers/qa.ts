import { PolyhopError } from '../../base/errors.js';
import {
  ask,
  estimateQuestions,
  guessLanguage,
  resolveQaSettings,
  rewriteFollowUp,
  type AskOptions,
  type QaContext,
  type QaSettings,
} from '../../qa/index.js';
import { CachingLlm } from '../../models/CachingLlm.js';
import type { Answer, FollowUpRewrite, HistoryEntry, Settings, StrategyName } from '../contract.js';
import type { KnowledgeBase } from '../../kb/index.js';
import type { Handlers } from '../dispatch.js';
import type { Engine } from '../Engine.js';
import type { KbSession } from '../KbSessions.js';
import { recordAnswerGraph } from '../answerRecords.js';
import { earlierTurns } from './threads.js';

/**
 * `qa:ask` runs as a job: the answer streams as `qa:token` events (a `reset` one starts it
 * over) and arrives whole in `job:finished`; it is kept in the KB's history. Without a generation model (or when asked),
 * the answer is retrieval-only: ranked evidence with citations. Asked in a thread, it is filed as
 * the thread's next turn; a follow-up is answered as its standalone question, the one `qa:rewrite`
 * gave (as the asker left it) or, without one, rewritten in the job.
 */
export function qaHandlers(engine: Engine): Pick<Handlers, 'qa:ask' | 'qa:history' | 'qa:rewrite' | 'qa:estimate'> {
  const pending = new PendingRewrites();
  return {
    'qa:estimate': () => estimateQuestions(),
    'qa:ask': (request) => {
      const { kb: name, question, strategy, retrievalOnly, keep, thread, standalone } = request;
      if (standalone !== undefined && thread === undefined)
        throw new PolyhopError('INVALID_REQUEST', 'qa:ask: a standalone question needs the thread it comes from');
      if (!keep && thread !== undefined)
        throw new PolyhopError(
          'INVALID_REQUEST',
          'qa:ask: an answer filed in a thread is kept (keep: false goes without thread)',
        );
      const session = engine.kbs.get(name);
      // An unknown thread fails the call itself, before any job starts.
      const earlier = typeof thread === 'number' ? earlierTurns(session.kb, thread) : [];
      const jobId = engine.jobs.start('ask', session.name, async ({ jobId, signal, emit, progress }) => {
        progress({ stage: 'answer', done: 0, total: 1, message: strategy });
        let rewrite: FollowUpRewrite | undefined;
        if (typeof thread === 'number' && earlier.length > 0)
          rewrite =
            standalone !== undefined
              ? pending.adopt(session.kb.file, thread, question, standalone)
              : await rewriteFollowUp(
                  await qaContext(engine, session, { strategy, retrievalOnly }),
                  earlier,
                  question,
                  {
                    signal,
                    ...uiLanguage(engine),
                  },
                );
        const asked = rewrite?.standalone ?? question;
        let context: QaContext | null = null;
        const answer = await answerQuestion(
          engine,
          session,
          {
            question: asked,
            strategy,
            retrievalOnly,
            // A follow-up is answered in its own language, whatever language its rewrite came out in.
            answerLanguage: request.answerLanguage ?? engine.settings.get().answerLanguage ?? rewrite?.language,
            ...(rewrite ? { rewrite } : {}),
          },
          {
            signal,
            onTextChunk: (text) => emit('qa:token', { jobId, text }),
            onTextRestart: () => emit('qa:token', { jobId, text: '', reset: true }),
            onContext: (ctx) => (context = ctx),
          },
        );
        if (keep) await keepAnswer(engine, session, { answer, asked, question, strategy, thread, context });
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
    'qa:rewrite': async ({ kb: name, thread, question }): Promise<FollowUpRewrite> => {
      const session = engine.kbs.get(name);
      const earlier = earlierTurns(session.kb, thread);
      const ctx = await qaContext(engine, session, { strategy: 'dr', retrievalOnly: false });
      const rewrite = await rewriteFollowUp(ctx, earlier, question, uiLanguage(engine));
      pending.keep(session.kb.file, thread, rewrite);
      return rewrite;
    },
    'qa:history': ({ kb: name, search, limit }): HistoryEntry[] =>
      engine.kbs
        .get(name)
        .kb.history.listHistory(search, limit)
        .map((h) => ({ id: h.id, askedAt: h.askedAt, answer: JSON.parse(h.answerJson) as Answer, stale: h.stale })),
  };
}

export interface QuestionRequest {
  question: string;
  strategy: StrategyName;
  retrievalOnly?: boolean;
  answerLanguage?: string | undefined;
  /** The follow-up rewrite the question came from: its step heads the trace. */
  rewrite?: FollowUpRewrite;
}

/** Answers one question over a KB with the loaded models (also used by benchmarks). */
export async function answerQuestion(
  engine: Engine,
  session: KbSession,
  request: QuestionRequest,
  options: { signal: AbortSignal; onContext?: (context: QaContext) => void } & Pick<
    AskOptions,
    'onTextChunk' | 'onTextRestart'
  >,
): Promise<Answer> {
  const context = await qaContext(engine, session, request);
  options.onContext?.(context);
  return ask(context, request.question, {
    strategy: request.strategy,
    retrievalOnly: Boolean(request.retrievalOnly),
    signal: options.signal,
    ...(options.onTextChunk ? { onTextChunk: options.onTextChunk } : {}),
    ...(options.onTextRestart ? { onTextRestart: options.onTextRestart } : {}),
    ...(request.answerLanguage ? { answerLanguage: request.answerLanguage } : {}),
    ...(request.rewrite ? { rewrite: request.rewrite } : {}),
    ...uiLanguage(engine),
  });
}

/**
 * Keeps an answer: in the history, as the next turn of its thread (a new one for 'new'), and as
 * data, its PROV-O named graph (the thread turn written into the answer first, so the graph names it).
 */
async function keepAnswer(
  engine: Engine,
  session: KbSession,
  kept: {
    answer: Answer;
    asked: string;
    question: string;
    strategy: StrategyName;
    thread: number | 'new' | undefined;
    context: QaContext | null;
  },
): Promise<void> {
  const { answer, asked, question, strategy, thread, context } = kept;
  const historyId = session.kb.history.addHistory(asked, strategy, JSON.stringify(answer));
  if (thread !== undefined) {
    const filed = thread === 'new' ? session.kb.threads.createThread(question) : session.kb.threads.thread(thread);
    const turn = session.kb.threads.addTurn(filed.id, { question, standaloneQuestion: asked, historyId });
    answer.thread = { id: filed.id, title: filed.title, turnId: turn.id, position: turn.position };
  }
  await recordAnswerGraph(engine, session, { historyId, answer, askedQuestion: question, context });
}

/** The models and settings a question over this KB is answered with (checks the KB's vectors and embedder first). */
async function qaContext(
  engine: Engine,
  session: KbSession,
  request: Pick<QuestionRequest, 'strategy' | 'retrievalOnly'>,
): Promise<QaContext> {
  const unembedded = session.kb.vectors.embedder() === null ? session.kb.vectors.countMissingVectors() : 0;
  if (unembedded > 0 && request.strategy !== 'llm-only')
    throw vectorsMissing(session.name, request.strategy, unembedded);
  const embedder = await engine.models.requireEmbedder('Answering');
  // llm-only retrieves nothing, so it must not record an embedder for vectors the KB lacks.
  if (unembedded === 0) session.kb.vectors.assertEmbedder(embedder.identity, embedder.dimension);
  const model = request.retrievalOnly ? null : await engine.models.generation();
  return {
    kb: session.kb,
    llm: model
      ? new CachingLlm(model, { store: session.kb.jobState.callCache, reasoning: engine.settings.get().reasoning })
      : null,
    embedder,
    prompts: engine.prompts,
    settings: qaSettingsFor(engine.settings.get(), session.kb),
  };
}

const uiLanguage = (engine: Engine): { uiLanguage?: string } => {
  const ui = engine.settings.get().uiLanguage;
  return ui ? { uiLanguage: ui } : {};
};

/**
 * The rewrites `qa:rewrite` gave, until the asker asks with one: `qa:ask` then heads its trace with
 * the model's call and notes an edit. A standalone question with no rewrite here (asked from
 * another window, or after a restart) is the asker's own.
 */
class PendingRewrites {
  static readonly #MAX = 50;
  readonly #rewrites = new Map<string, FollowUpRewrite>();

  keep(kbFile: string, thread: number, rewrite: FollowUpRewrite): void {
    const key = PendingRewrites.#key(kbFile, thread, rewrite.followUp);
    this.#rewrites.delete(key);
    this.#rewrites.set(key, rewrite);
    if (this.#rewrites.size > PendingRewrites.#MAX) this.#rewrites.delete(this.#rewrites.keys().next().value!);
  }

  adopt(kbFile: string, thread: number, followUp: string, standalone: string): FollowUpRewrite {
    const key = PendingRewrites.#key(kbFile, thread, followUp.trim());
    const rewrite = this.#rewrites.get(key);
    this.#rewrites.delete(key);
    const used = standalone.trim();
    if (!rewrite)
      return {
        followUp: followUp.trim(),
        standalone: used,
        how: 'asker',
        language: guessLanguage(followUp).language,
        step: {
          step: 'rewrite',
          detail: { followUp: followUp.trim(), standalone: used, how: 'asker' },
          llmCalls: 0,
          promptTokens: 0,
          completionTokens: 0,
          ms: 0,
        },
        usage: { llmCalls: 0, promptTokens: 0, completionTokens: 0, cacheHits: 0, ms: 0 },
      };
    const edited = used !== rewrite.standalone;
    const detail = { ...(rewrite.step.detail as Record<string, unknown>), standalone: used, edited };
    return { ...rewrite, standalone: used, how: edited ? 'asker' : rewrite.how, step: { ...rewrite.step, detail } };
  }

  static #key(kbFile: string, thread: number, followUp: string): string {
    return JSON.stringify([kbFile, thread, followUp]);
  }
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
      'Choose an embedding model (Models screen, or `polyhop models use embedding PATH`), ' +
      `then embed the knowledge base (Embed on the Corpus screen, or \`polyhop kb reembed ${kb}\`). ` +
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
  kb: Pick<KnowledgeBase, 'vectors'>,
): QaSettings {
  const settings = resolveQaSettings(strategyParams);
  const calibration =
    thresholds === 'calibrated' && !('dapt.tau' in strategyParams) ? kb.vectors.similarityCalibration() : null;
  if (calibration) settings.dapt.tau = calibration.fusionThreshold;
  return settings;
}

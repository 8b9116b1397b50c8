import { create } from 'zustand';
import type { Answer, FollowUpRewrite, StrategyName } from '../../api/index.js';
import { api } from '../../api/index.js';
import { useJobs } from './jobs.js';

/** One question through one strategy: a live job, or an answer loaded from history. */
export interface AskRun {
  key: string;
  strategy: StrategyName;
  question: string;
  jobId: string | null;
  /** Set for history entries (no job). */
  answer: Answer | null;
}

/** A follow-up made standalone by `qa:rewrite`, waiting for the asker to run it (edited or not). */
export interface PendingFollowUp {
  kb: string;
  thread: number;
  strategy: StrategyName;
  rewrite: FollowUpRewrite;
}

export interface AskOptions {
  answerLanguage: string | null;
  retrievalOnly: boolean;
}

interface AskState {
  question: string;
  runs: AskRun[];
  /** The conversation the next question continues (null: the next question starts a new one). */
  threadId: number | null;
  /** The KB `threadId` belongs to. */
  threadKb: string | null;
  pending: PendingFollowUp | null;
  setQuestion(question: string): void;
  /** Starts one job per strategy; the runs replace the previous ones. Not filed in a thread. */
  ask(kb: string, question: string, strategies: StrategyName[], options: AskOptions): Promise<void>;
  /**
   * One strategy in the conversation: with no thread, the first turn of a new one; in a thread,
   * the follow-up is rewritten first and waits in `pending` for {@link askPending}.
   */
  askInThread(kb: string, question: string, strategy: StrategyName, options: AskOptions): Promise<void>;
  /** Runs the pending follow-up as `standalone` (the rewrite as shown, or the asker's edit). */
  askPending(standalone: string, options: AskOptions): Promise<void>;
  discardPending(): void;
  /** Asks a stale answer's question again in its thread (as it was answered, so it is not rewritten). */
  askAgain(kb: string, thread: number, standalone: string, strategy: StrategyName): Promise<void>;
  /** Continues this thread (null: a new one); clears the runs shown. */
  selectThread(kb: string, thread: number | null): void;
  /** The thread an answer was filed in becomes the current one (remembered for the KB). */
  filed(kb: string, answer: Answer): void;
  /** Finished runs filed in a thread leave the live area: the conversation shows them as they read now (stale, say). */
  settleFiled(): void;
  show(answer: Answer): void;
  cancel(): Promise<void>;
}

let counter = 0;

const THREAD_KEY = (kb: string): string => `polyhop.thread.${kb}`;

/** The thread last continued in this KB, kept across reloads. */
export function rememberedThread(kb: string): number | null {
  const value = Number(localStorage.getItem(THREAD_KEY(kb)));
  return Number.isInteger(value) && value > 0 ? value : null;
}

function remember(kb: string, thread: number | null): void {
  if (thread === null) localStorage.removeItem(THREAD_KEY(kb));
  else localStorage.setItem(THREAD_KEY(kb), String(thread));
}

async function startRun(
  kb: string,
  question: string,
  strategy: StrategyName,
  options: AskOptions,
  filing: { thread: number | 'new'; standalone?: string } | null,
): Promise<AskRun> {
  const { jobId } = await api().call('qa:ask', {
    kb,
    question,
    strategy,
    retrievalOnly: options.retrievalOnly,
    ...(options.answerLanguage ? { answerLanguage: options.answerLanguage } : {}),
    ...(filing ?? {}),
  });
  useJobs.getState().track(jobId, 'ask', kb);
  return { key: `run-${++counter}`, strategy, question, jobId, answer: null };
}

export const useAsk = create<AskState>()((set, get) => ({
  question: '',
  runs: [],
  threadId: null,
  threadKb: null,
  pending: null,
  setQuestion(question) {
    set({ question });
  },
  async ask(kb, question, strategies, options) {
    set({ runs: [], pending: null });
    const runs = await Promise.all(strategies.map((s) => startRun(kb, question, s, options, null)));
    set({ runs });
  },
  async askInThread(kb, question, strategy, options) {
    const thread = get().threadId;
    if (thread === null) {
      set({ runs: [], pending: null });
      const run = await startRun(kb, question, strategy, options, { thread: 'new' });
      set({ runs: [run] });
      return;
    }
    const rewrite = await api().call('qa:rewrite', { kb, thread, question });
    set({ pending: { kb, thread, strategy, rewrite } });
  },
  async askPending(standalone, options) {
    const pending = get().pending;
    if (!pending) return;
    const { kb, thread, strategy, rewrite } = pending;
    const run = await startRun(kb, rewrite.followUp, strategy, options, { thread, standalone });
    set({ runs: [run], pending: null, question: '' });
  },
  discardPending() {
    set({ pending: null });
  },
  async askAgain(kb, thread, standalone, strategy) {
    remember(kb, thread);
    set({ threadId: thread, threadKb: kb, pending: null, runs: [] });
    const run = await startRun(
      kb,
      standalone,
      strategy,
      { answerLanguage: null, retrievalOnly: false },
      {
        thread,
        standalone,
      },
    );
    set({ runs: [run] });
  },
  selectThread(kb, thread) {
    remember(kb, thread);
    set({ threadId: thread, threadKb: kb, runs: [], pending: null });
  },
  filed(kb, answer) {
    if (!answer.thread || answer.thread.id === get().threadId) return;
    remember(kb, answer.thread.id);
    set({ threadId: answer.thread.id, threadKb: kb });
  },
  settleFiled() {
    const jobs = useJobs.getState().jobs;
    const settled = (run: AskRun): boolean => {
      const job = run.jobId ? jobs[run.jobId] : undefined;
      return job?.status === 'done' && (job.result as Answer | null)?.thread != null;
    };
    if (get().runs.some(settled)) set({ runs: get().runs.filter((run) => !settled(run)) });
  },
  show(answer) {
    set({
      question: answer.question,
      pending: null,
      runs: [{ key: `run-${++counter}`, strategy: answer.strategy, question: answer.question, jobId: null, answer }],
    });
  },
  async cancel() {
    const jobs = useJobs.getState().jobs;
    await Promise.all(
      get()
        .runs.filter((r) => r.jobId && jobs[r.jobId]?.status === 'running')
        .map((r) => api().call('jobs:cancel', { jobId: r.jobId! })),
    );
  },
}));

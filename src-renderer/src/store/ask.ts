import { create } from 'zustand';
import type { Answer, StrategyName } from '../../api/index.js';
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

interface AskState {
  question: string;
  runs: AskRun[];
  setQuestion(question: string): void;
  /** Starts one job per strategy; the runs replace the previous ones. */
  ask(
    kb: string,
    question: string,
    strategies: StrategyName[],
    answerLanguage: string | null,
    retrievalOnly: boolean,
  ): Promise<void>;
  show(answer: Answer): void;
  cancel(): Promise<void>;
}

let counter = 0;

export const useAsk = create<AskState>()((set, get) => ({
  question: '',
  runs: [],
  setQuestion(question) {
    set({ question });
  },
  async ask(kb, question, strategies, answerLanguage, retrievalOnly) {
    set({ runs: [] });
    const runs = await Promise.all(
      strategies.map(async (strategy): Promise<AskRun> => {
        const { jobId } = await api().call('qa:ask', {
          kb,
          question,
          strategy,
          retrievalOnly,
          ...(answerLanguage ? { answerLanguage } : {}),
        });
        useJobs.getState().track(jobId, 'ask', kb);
        return { key: `run-${++counter}`, strategy, question, jobId, answer: null };
      }),
    );
    set({ runs });
  },
  show(answer) {
    set({
      question: answer.question,
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

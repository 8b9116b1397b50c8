import { describe, expect, it } from 'vitest';
import type { EvalManifest } from '../../../src-main/engine/eval/EvalManifest.js';
import { ZERO_COST, type EvalResultRow } from '../../../src-main/engine/eval/EvalResultRow.js';
import type { LoadedRun } from '../../../src-main/engine/eval/loadEvalRun.js';
import { summariseRuns } from '../../../src-main/engine/eval/summariseRuns.js';

const manifest: EvalManifest = {
  v: 1,
  dataset: {
    name: 'musique',
    format: 'musique',
    path: 'm.jsonl',
    kbLanguage: 'en',
    fingerprint: 'f',
    questions: 4,
    passages: 8,
    notes: [],
  },
  strategies: ['vector', 'dapt'],
  languages: ['en', 'sw'],
  baselines: ['vector'],
  seed: 1,
  bootstrapSamples: 200,
  startedAt: '',
  updatedAt: '',
  translation: { ...ZERO_COST },
};

function row(itemId: string, strategy: 'vector' | 'dapt', language: 'en' | 'sw', em: number): EvalResultRow {
  return {
    v: 1,
    dataset: 'musique',
    itemId,
    strategy,
    language,
    condition: language === 'en' ? 'match' : 'mismatch',
    question: 'q',
    translatedBy: 'original',
    references: ['a'],
    answer: 'a',
    shortAnswer: 'a',
    citedPassageIds: [],
    trace: [],
    scores: { em, f1: em },
    cost: { ...ZERO_COST },
    evalCost: { ...ZERO_COST },
    finishedAt: '',
  };
}

describe('beside the papers', () => {
  it('puts DaPT Table 1 beside our figure per language, our same strategy where we ran it, and our best', () => {
    const rows = ['q1', 'q2', 'q3', 'q4'].flatMap((q, i) => [
      row(q, 'vector', 'en', i % 2),
      row(q, 'dapt', 'en', 1),
      row(q, 'vector', 'sw', 0),
      row(q, 'dapt', 'sw', i === 0 ? 1 : 0),
    ]);
    const run: LoadedRun = { dir: 'x', manifest, rows };
    const { besidePapers } = summariseRuns([run], { samples: 200, seed: 1 });
    const sw = besidePapers.filter((b) => b.language === 'sw' && b.metric === 'em');
    expect(sw.map((b) => b.published.system).sort()).toEqual([
      'CoT',
      'DaPT',
      'GraphRAG',
      'HippoRAG2',
      'Vanilla RAG',
      'Zero-shot',
    ]);
    const dapt = sw.find((b) => b.published.system === 'DaPT')!;
    expect(dapt.published.value).toBe(0.213); // DaPT Table 1, MuSiQue, Sw EM 21.3
    expect(dapt.same?.strategy).toBe('dapt');
    expect(dapt.same?.estimate.mean).toBe(0.25);
    const hippo = sw.find((b) => b.published.system === 'HippoRAG2')!;
    expect(hippo.same).toBeNull(); // no HippoRAG 2 strategy here
    expect(hippo.best).toMatchObject({ strategy: 'dapt' });
    const vanilla = besidePapers.find(
      (b) => b.language === 'en' && b.metric === 'f1' && b.published.system === 'Vanilla RAG',
    )!;
    expect(vanilla.published.value).toBe(0.291);
    expect(vanilla.same).toMatchObject({ strategy: 'vector', estimate: { mean: 0.5 } });
    // MuSiQue is in no MDER-DR or HyP-KGRAG table.
    expect(besidePapers.every((b) => b.published.paper === 'DaPT')).toBe(true);
  });
});

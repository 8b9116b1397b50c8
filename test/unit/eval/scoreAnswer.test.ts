import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PolyhopError } from '../../../src-main/engine/base/errors.js';
import { ANSWER_SCRIPTS, answerScriptFor } from '../../../src-main/engine/eval/metrics/answerScript.js';
import { bleu } from '../../../src-main/engine/eval/metrics/bleu.js';
import { embeddingSimilarity } from '../../../src-main/engine/eval/metrics/embeddingSimilarity.js';
import {
  METRIC_ORDER,
  metricLabel,
  metricRank,
  recallMetric,
} from '../../../src-main/engine/eval/metrics/metricIds.js';
import { failedScores, scoreAnswer, type ScoreInput } from '../../../src-main/engine/eval/metrics/scoreAnswer.js';
import { DATASET_FORMATS } from '../../../src-main/engine/eval/types.js';
import { PromptLibrary } from '../../../src-main/engine/models/PromptLibrary.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';

const prompts = new PromptLibrary(join(import.meta.dirname, '../../../prompts'));
const base: ScoreInput = {
  question: 'Who was the wife of Odysseus?',
  references: ['Penelope'],
  response: 'Penelope, wife of Odysseus [1].',
  shortAnswer: 'Penelope',
  language: 'en',
  citedPassageIds: ['p1', 'p2', 'p3'],
  supportingPassageIds: ['p3'],
};

describe('scoreAnswer', () => {
  it('reads EM and F1 from the short answer, the rest from the whole answer without its citation markers', async () => {
    const { scores, judge, judgeError, usage } = await scoreAnswer(base);
    expect(scores).toMatchObject({ em: 1, f1: 1, 'em-lang': 1, 'f1-lang': 1, 'soft-em': 1, 'rouge1-r': 1 });
    expect(scores['rouge1-p']).toBeCloseTo(1 / 4, 9); // penelope wife of odysseus: "1" is no word of it
    expect(scores.bleu).toBe(bleu('Penelope, wife of Odysseus  .', base.references, 'en'));
    expect(scores.bleu).not.toBe(bleu(base.response, base.references, 'en'));
    expect([judge, judgeError, scores.judge, scores.similarity]).toEqual([undefined, undefined, undefined, undefined]);
    expect(usage).toEqual([]);
  });

  it('reads the whole answer for EM and F1 when there is no short answer', async () => {
    const { scores } = await scoreAnswer({ ...base, shortAnswer: undefined });
    expect(scores.em).toBe(0);
    expect(scores.f1).toBeGreaterThan(0);
    expect(scores.f1).toBeLessThan(1);
  });

  it("applies the answer language to the -lang metrics only, and the dataset's script to both F1s", async () => {
    const it = { ...base, references: ['cane'], response: 'il cane', shortAnswer: 'il cane', language: 'it' };
    const { scores } = await scoreAnswer(it);
    expect([scores.em, scores['em-lang'], scores['f1-lang']]).toEqual([0, 1, 1]);
    expect(scores.f1).toBeCloseTo(2 / 3, 9);
    const empty = { ...base, references: [''], shortAnswer: '' };
    expect((await scoreAnswer(empty)).scores).toMatchObject({ f1: 0, 'f1-lang': 0 }); // SQuAD by default
    expect((await scoreAnswer({ ...empty, script: 'musique' })).scores).toMatchObject({ f1: 1, 'f1-lang': 1 });
  });

  it('scores recall at 2 and 5 by default, at the given k otherwise, and not at all without supporting passages', async () => {
    expect((await scoreAnswer(base)).scores).toMatchObject({ 'recall@2': 0, 'recall@5': 1 });
    const at3 = (await scoreAnswer(base, { recallAt: [3] })).scores;
    expect(Object.keys(at3).filter((k) => k.startsWith('recall@'))).toEqual(['recall@3']);
    expect(at3['recall@3']).toBe(1);
    const none = (await scoreAnswer({ ...base, supportingPassageIds: undefined })).scores;
    expect(Object.keys(none).filter((k) => k.startsWith('recall@'))).toEqual([]);
  });

  it('adds similarity of the answer without citations when an embedder is given', async () => {
    const embedder = new NgramEmbedder();
    const { scores } = await scoreAnswer(base, { embedder });
    expect(scores.similarity).toBe(await embeddingSimilarity(embedder, 'Penelope, wife of Odysseus  .', ['Penelope']));
  });

  it("adds the judge's grade and usage, counts an unreadable verdict as 0, and lets other errors through", async () => {
    const llm = new ScriptedLlm([{ prompt: 'eval/judge', reply: () => ({ reason: 'right person', grade: 4 }) }]);
    const judged = await scoreAnswer(base, { judge: { llm, prompts } });
    expect(judged.scores.judge).toBe(1);
    expect(judged.judge).toEqual({ grade: 4, reason: 'right person' });
    expect(judged.usage).toHaveLength(1);
    expect(judged.judgeError).toBeUndefined();

    const outOfRubric = new ScriptedLlm([{ prompt: 'eval/judge', reply: () => ({ reason: 'x', grade: 9 }) }]);
    const failed = await scoreAnswer(base, { judge: { llm: outOfRubric, prompts } });
    expect(failed.scores.judge).toBe(0);
    expect(failed.judge).toBeUndefined();
    expect(failed.judgeError).toMatch(/eval\/judge/);

    const crashing = new ScriptedLlm([
      {
        prompt: 'eval/judge',
        reply: () => {
          throw new PolyhopError('MODEL_ERROR', 'the model process exited');
        },
      },
    ]);
    await expect(scoreAnswer(base, { judge: { llm: crashing, prompts } })).rejects.toMatchObject({
      code: 'MODEL_ERROR',
    });
  });
});

describe('failedScores', () => {
  it('is 0 on every answer metric, judge and similarity only when they would have run, recall only where defined', () => {
    const plain = failedScores({ supportingPassageIds: ['p1'] }, {});
    const answerMetrics = METRIC_ORDER.filter((id) => id !== 'judge' && id !== 'similarity');
    expect(Object.keys(plain).sort()).toEqual([...answerMetrics, 'recall@2', 'recall@5'].sort());
    expect(Object.values(plain).every((v) => v === 0)).toBe(true);
    const all = failedScores(
      { supportingPassageIds: [] },
      { recallAt: [1], embedder: new NgramEmbedder(), judge: { llm: new ScriptedLlm([]), prompts } },
    );
    expect(Object.keys(all).sort()).toEqual([...METRIC_ORDER].sort());
    expect(Object.values(all).every((v) => v === 0)).toBe(true);
    expect(
      Object.keys(failedScores({ supportingPassageIds: ['p'] }, { recallAt: [7] })).filter((k) =>
        k.startsWith('recall'),
      ),
    ).toEqual(['recall@7']);
    expect(Object.keys(failedScores({}, {})).some((k) => k.startsWith('recall'))).toBe(false);
  });
});

describe('metric ids', () => {
  it('labels every metric in words, recall@k by its k, and leaves unknown ids as they are', () => {
    const labels = METRIC_ORDER.map(metricLabel);
    for (const [i, label] of labels.entries()) {
      expect(label).not.toBe(METRIC_ORDER[i]);
      expect(label.length).toBeGreaterThanOrEqual(METRIC_ORDER[i]!.length);
    }
    expect(new Set(labels).size).toBe(labels.length);
    expect(metricLabel(recallMetric(10))).toBe('Recall@10');
    for (const id of ['xrecall@2', 'recall@2x', 'recall@ab', 'unknown']) expect(metricLabel(id)).toBe(id);
  });

  it('ranks in report order, recall@k after the answer metrics by k, unknown ids last', () => {
    expect(METRIC_ORDER.map(metricRank)).toEqual(METRIC_ORDER.map((_, i) => i));
    const ids = ['unknown', 'recall@10', 'judge', 'recall@2', 'similarity', 'xrecall@1', 'recall@1x'];
    expect([...ids].sort((a, b) => metricRank(a) - metricRank(b)).slice(0, 4)).toEqual([
      'judge',
      'similarity',
      'recall@2',
      'recall@10',
    ]);
    expect(metricRank('recall@10')).toBeLessThan(metricRank('unknown'));
    expect(metricRank('xrecall@1')).toBe(metricRank('unknown'));
    expect(metricRank('recall@1x')).toBe(metricRank('unknown'));
  });
});

describe('answer scripts', () => {
  it("scores a format by its own script where it has one, by SQuAD's otherwise, and names each script", () => {
    const own: Record<string, string> = { hotpotqa: 'hotpotqa', '2wiki': '2wiki', musique: 'musique' };
    for (const format of DATASET_FORMATS) expect(answerScriptFor(format)).toBe(own[format] ?? 'squad');
    const names = Object.values(ANSWER_SCRIPTS);
    expect(Object.keys(ANSWER_SCRIPTS).sort()).toEqual(['2wiki', 'hotpotqa', 'musique', 'squad']);
    expect(names.every((n) => n.length > 0)).toBe(true);
    expect(new Set(names).size).toBe(4);
  });
});

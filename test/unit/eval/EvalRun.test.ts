import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Answer, StrategyName } from '../../../src-main/engine/api/contract.js';
import { CancelledError, PolyhopError } from '../../../src-main/engine/base/errors.js';
import type { AskRequest, EvalDependencies, EvalKb } from '../../../src-main/engine/eval/EvalDependencies.js';
import { EvalRun } from '../../../src-main/engine/eval/EvalRun.js';
import type { EvalProgress } from '../../../src-main/engine/eval/EvalRunOptions.js';
import type { EvalResultRow } from '../../../src-main/engine/eval/EvalResultRow.js';
import { bootstrapMean, pairedBootstrap } from '../../../src-main/engine/eval/stats/bootstrap.js';
import type { EvalKbSource } from '../../../src-main/engine/eval/types.js';
import { PromptLibrary } from '../../../src-main/engine/models/PromptLibrary.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';

const prompts = new PromptLibrary(join(import.meta.dirname, '../../../prompts'));
const tmp = mkdtempSync(join(tmpdir(), 'polyhop-eval-run-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// Five questions with their context passage (written for this test).
const QUESTIONS = [
  {
    id: 'q1',
    question: 'Who was the wife of Odysseus?',
    answers: ['Penelope'],
    it: ['Chi era la moglie di Ulisse?', 'Penelope'],
    context: 'Penelope was the wife of Odysseus.',
  },
  {
    id: 'q2',
    question: 'Who was the son of Odysseus?',
    answers: ['Telemachus'],
    it: ['Chi era il figlio di Ulisse?', 'Telemaco'],
    context: 'Telemachus was the son of Odysseus.',
  },
  {
    id: 'q3',
    question: 'Which island did Odysseus rule?',
    answers: ['Ithaca'],
    it: ['Quale isola governava Ulisse?', 'Itaca'],
    context: 'Odysseus was king of Ithaca.',
  },
  {
    id: 'q4',
    question: 'Who was the father of Odysseus?',
    answers: ['Laertes'],
    it: ['Chi era il padre di Ulisse?', 'Laerte'],
    context: 'Laertes was the father of Odysseus.',
  },
  {
    id: 'q5',
    question: 'Who wrote the Odyssey?',
    answers: ['Homer'],
    it: ["Chi scrisse l'Odissea?", 'Omero'],
    context: 'The Odyssey is attributed to Homer.',
  },
] as const;

/** The short answers the stub strategies give, by strategy, language and question; `null` fails. The explained answer wraps it in a cited sentence. */
const ANSWERS: Record<string, Record<string, (string | null)[]>> = {
  dr: {
    en: ['Penelope', 'Telemachus', 'Ithaca', 'Laertes', 'Homer'],
    it: ['Penelope', 'Telemaco era il figlio.', 'Itaca', 'Laerte', 'Omero'],
  },
  vector: {
    en: ['Penelope', 'Telemachus was his son.', 'Odysseus ruled Sparta.', 'Laertes', 'I do not know.'],
    it: ['Penelope', null, 'Sparta', 'Laerte', "Omero scrisse l'Odissea."],
  },
};

// Per-question scores worked out by hand from the answers above (q1…q5, the run's order).
const EXPECTED: Record<string, Record<string, Record<string, number[]>>> = {
  'soft-em': {
    en: { vector: [1, 1, 0, 1, 0], dr: [1, 1, 1, 1, 1] },
    it: { vector: [1, 0, 0, 1, 1], dr: [1, 1, 1, 1, 1] },
  },
  em: { en: { vector: [1, 0, 0, 1, 0], dr: [1, 1, 1, 1, 1] }, it: { vector: [1, 0, 0, 1, 0], dr: [1, 0, 1, 1, 1] } },
  // grade 4 (1.0) when the response names the expected answer, else 1 (0.25); the failed answer scores 0.
  judge: {
    en: { vector: [1, 1, 0.25, 1, 0.25], dr: [1, 1, 1, 1, 1] },
    it: { vector: [1, 0, 0.25, 1, 1], dr: [1, 1, 1, 1, 1] },
  },
  'recall@2': {
    en: { vector: [1, 1, 1, 1, 1], dr: [1, 1, 1, 1, 1] },
    it: { vector: [1, 0, 1, 1, 1], dr: [1, 1, 1, 1, 1] },
  },
};

function writeDataset(): string {
  const path = join(tmp, 'odyssey.jsonl');
  writeFileSync(
    path,
    QUESTIONS.map((q) =>
      JSON.stringify({
        id: q.id,
        question: q.question,
        answers: q.answers,
        context: q.context,
        title: `Passage ${q.id}`,
      }),
    ).join('\n'),
  );
  return path;
}

function scriptedLlm(): ScriptedLlm {
  return new ScriptedLlm([
    {
      prompt: 'eval/translate',
      reply: (v) => {
        const q = QUESTIONS.find((x) => x.question === v.question);
        if (!q || v.target_language !== 'Italian') throw new Error(`unexpected translation ${JSON.stringify(v)}`);
        return { question: q.it[0], answers: [q.it[1]] };
      },
    },
    {
      prompt: 'eval/judge',
      reply: (v) => ({
        reason: 'checked',
        grade: v.response!.toLowerCase().includes(v.expected!.toLowerCase()) ? 4 : 1,
      }),
    },
  ]);
}

interface StubKb extends EvalKb {
  passages: number;
}

/** Test-only stand-ins for indexing and QA: answers from the table, citing the question's own passage. */
function stubDeps(llm: ScriptedLlm, asked: string[]): EvalDependencies<StubKb> {
  return {
    llm,
    prompts,
    async buildKb(source: EvalKbSource) {
      const passages = source.kind === 'passages' ? source.passages.length : 0;
      return {
        kb: { name: 'stub', passages, passageIdOf: (c) => c.documentTitle },
        reused: false,
        cost: { llmCalls: 10, promptTokens: 1000, completionTokens: 200, cacheHits: 0, ms: 500 },
      };
    },
    async ask(_kb, request: AskRequest): Promise<Answer> {
      const index = QUESTIONS.findIndex((q) => q.question === request.question || q.it[0] === request.question);
      asked.push(`${request.strategy}/${request.answerLanguage}/q${index + 1}`);
      const shortAnswer = ANSWERS[request.strategy]?.[request.answerLanguage]?.[index];
      if (shortAnswer === null || shortAnswer === undefined) throw new PolyhopError('MODEL_ERROR', 'the model crashed');
      // EM on this text would be 0 everywhere: only the short answer can match exactly.
      const text = `${request.answerLanguage === 'it' ? 'Secondo le fonti' : 'According to the sources'}: ${shortAnswer} [1].`;
      const cite = (id: string) => ({
        documentId: 1,
        documentTitle: id,
        chunkId: 1,
        page: null,
        startOffset: 0,
        endOffset: 10,
      });
      return {
        question: request.question,
        questionLanguage: request.answerLanguage,
        answerLanguage: request.answerLanguage,
        strategy: request.strategy,
        text,
        shortAnswer,
        retrievalOnly: false,
        evidence: [
          {
            kind: 'chunk',
            text: 'e',
            label: 'l',
            score: 1,
            citations: [cite(`Passage q${index + 1}`), cite('Passage q9')],
          },
        ],
        trace: [
          {
            step: 'answer',
            detail: { big: 'x'.repeat(100) },
            llmCalls: 2,
            promptTokens: 120,
            completionTokens: 30,
            ms: 40,
          },
        ],
        usage: { llmCalls: 2, promptTokens: 120, completionTokens: 30, cacheHits: 0, ms: 50 },
      };
    },
  };
}

const STRATEGIES: StrategyName[] = ['vector', 'dr'];

function options(outDir: string, extra: Partial<ConstructorParameters<typeof EvalRun>[0]> = {}) {
  return {
    datasetPath: writeDataset(),
    format: 'jsonl' as const,
    strategies: STRATEGIES,
    languages: ['en', 'it'],
    limit: 5,
    outDir,
    ...extra,
  };
}

function fmt(scores: number[]): string {
  const e = bootstrapMean(scores, { samples: 10_000, seed: 1 });
  return `${e.mean.toFixed(3)} ± ${e.se.toFixed(3)}`;
}

/** The expected table line, from the hand-worked scores (bootstrap SEs from the same seed). */
function expectedLine(metric: string, label: string, condition: 'en' | 'it'): string {
  const s = EXPECTED[metric]![condition]!;
  const vector = s.vector!;
  const dr = s.dr!;
  const mean = (x: number[]) => x.reduce((a, b) => a + b, 0) / x.length;
  const delta = mean(vector) > 0 ? `${Math.round(((mean(dr) - mean(vector)) / mean(vector)) * 100)}%` : '—';
  const paired = pairedBootstrap(dr, vector, { samples: 10_000, seed: 1 });
  const pText = paired.p < 0.001 ? '<0.001' : paired.p.toFixed(3);
  const sigma = Math.abs(paired.meanDiff) > paired.se ? 'yes' : 'no';
  return `| odyssey | ${label} | ${condition === 'en' ? '✓' : ''} | ${fmt(vector)} | ${fmt(dr)} | ${delta} | ${sigma} | ${pText} |`;
}

describe('EvalRun end to end (scripted LLM, stub QA)', () => {
  const fullDir = join(tmp, 'full');
  const progress: EvalProgress[] = [];

  it('asks 5 questions × 2 languages × 2 strategies and writes the exact table', async () => {
    const llm = scriptedLlm();
    const asked: string[] = [];
    const result = await new EvalRun(
      options(fullDir, { onProgress: (p) => progress.push(p) }),
      stubDeps(llm, asked),
    ).run();
    expect(result).toMatchObject({ asked: 20, skipped: 0, failed: 1 });
    expect(asked).toHaveLength(20);
    expect(llm.callsOf('eval/translate')).toHaveLength(5);
    // 19 answers to judge (not the failed one), 4 of them word for word the other strategy's: the call cache answers those.
    expect(llm.callsOf('eval/judge')).toHaveLength(15);
    expect(new Set(progress.map((p) => p.stage))).toEqual(new Set(['read', 'translate', 'index', 'ask', 'report']));

    const md = readFileSync(join(fullDir, 'report.md'), 'utf8');
    expect(md).toContain('| Dataset | Metric | Match | vector | dr | Δ (%) | 1σ | p |');
    for (const [metric, label] of [
      ['judge', 'LLM-as-a-Judge (full answer)'],
      ['soft-em', 'Soft EM (full answer)'],
      ['em', 'EM (short answer)'],
      ['recall@2', 'Recall@2'],
    ] as const) {
      expect(md).toContain(expectedLine(metric, label, 'en'));
      expect(md).toContain(expectedLine(metric, label, 'it'));
    }
    // Spot values worked out by hand, independent of the formatting helper above.
    expect(md).toContain('| odyssey | Soft EM (full answer) | ✓ | 0.600 ± ');
    expect(md).toMatch(/\| odyssey \| Soft EM \(full answer\) \| ✓ \| 0\.600 ± 0\.2\d\d \| 1\.000 ± 0\.000 \| 67% \|/);
    expect(md).toMatch(
      /\| odyssey \| LLM-as-a-Judge \(full answer\) \| {2}\| 0\.650 ± 0\.\d{3} \| 1\.000 ± 0\.000 \| 54% \|/,
    );
    expect(md).toContain('| odyssey | vector | 10 | 1 | 0 | 2.0 | 120 | 30 | 0.0 | 50 |');
    expect(md).toContain('| odyssey | 5 | built | 10 | 1000 + 200 | 500 | 2.00 / 240 / 100 | 5 |');

    const rows = readFileSync(join(fullDir, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as EvalResultRow);
    expect(rows).toHaveLength(20);
    const itQ2 = rows.find((r) => r.itemId === 'q2' && r.language === 'it' && r.strategy === 'dr');
    expect(itQ2).toMatchObject({
      condition: 'mismatch',
      question: 'Chi era il figlio di Ulisse?',
      originalQuestion: 'Who was the son of Odysseus?',
      translatedBy: 'llm',
      references: ['Telemaco', 'Telemachus'],
      answer: 'Secondo le fonti: Telemaco era il figlio. [1].',
      shortAnswer: 'Telemaco era il figlio.',
      citedPassageIds: ['Passage q2', 'Passage q9'],
      trace: [{ step: 'answer', llmCalls: 2, promptTokens: 120, completionTokens: 30, ms: 40 }],
      cost: { llmCalls: 2, promptTokens: 120, completionTokens: 30, cacheHits: 0, ms: 50 },
      judge: { grade: 4, reason: 'checked' },
    });
    expect(itQ2?.scores).toMatchObject({ 'soft-em': 1, em: 0, judge: 1, 'recall@2': 1 });
    expect(rows.find((r) => r.error)).toMatchObject({
      itemId: 'q2',
      language: 'it',
      strategy: 'vector',
      answer: null,
      error: { code: 'MODEL_ERROR' },
    });

    for (const chart of ['charts/odyssey-soft-em-match.svg', 'charts/odyssey-judge-mismatch.svg']) {
      const svg = readFileSync(join(fullDir, chart), 'utf8');
      expect(svg.startsWith('<svg')).toBe(true);
      expect(svg).toContain('vector');
      expect(md).toContain(`](${chart})`);
    }
  });

  it('resumes a cancelled run: finished rows are skipped and the report is the same', async () => {
    const dir = join(tmp, 'resumed');
    const controller = new AbortController();
    const firstAsked: string[] = [];
    const firstLlm = scriptedLlm();
    const run = new EvalRun(
      options(dir, {
        signal: controller.signal,
        onProgress: (p) => p.stage === 'ask' && p.done === 5 && controller.abort(),
      }),
      stubDeps(firstLlm, firstAsked),
    );
    await expect(run.run()).rejects.toBeInstanceOf(CancelledError);
    expect(readFileSync(join(dir, 'results.jsonl'), 'utf8').trim().split('\n')).toHaveLength(5);
    expect(existsSync(join(dir, 'report.md'))).toBe(false);

    // A torn last line, as a kill during the write would leave.
    writeFileSync(
      join(dir, 'results.jsonl'),
      `${readFileSync(join(dir, 'results.jsonl'), 'utf8')}{"v":1,"dataset":"ody`,
    );

    const secondAsked: string[] = [];
    const secondLlm = scriptedLlm();
    const result = await new EvalRun(options(dir), stubDeps(secondLlm, secondAsked)).run();
    expect(result).toMatchObject({ asked: 15, skipped: 5, failed: 1 });
    expect(secondAsked).toHaveLength(15);
    expect(secondAsked.filter((k) => firstAsked.slice(0, 5).includes(k))).toEqual([]);
    expect(secondLlm.callsOf('eval/translate')).toHaveLength(0); // from the run's call cache
    const report = (d: string) => readFileSync(join(d, 'report.md'), 'utf8');
    expect(report(dir)).toBe(report(fullDir));

    // Once more: only the failed row is retried.
    const thirdAsked: string[] = [];
    const third = await new EvalRun(
      options(dir, { strategies: ['vector'] }),
      stubDeps(scriptedLlm(), thirdAsked),
    ).run();
    expect(third).toMatchObject({ asked: 1, skipped: 9 });
    expect(thirdAsked).toEqual(['vector/it/q2']);
  });

  it('refuses an output folder holding a run of other questions', async () => {
    await expect(new EvalRun(options(fullDir, { limit: 3 }), stubDeps(scriptedLlm(), [])).run()).rejects.toMatchObject({
      code: 'CONFLICT',
    });
  });

  it("judges with a second model, counts its unreadable replies as failures, names the similarity model and prints the papers' figures beside ours", async () => {
    const dir = join(tmp, 'judged');
    const underTest = scriptedLlm();
    // The judge model garbles its grade for one answer, as a weak model may; the Llm has already retried.
    const judge = new ScriptedLlm(
      [
        {
          prompt: 'eval/judge',
          reply: (v) =>
            v.response!.includes('Sparta')
              ? { reason: 'x', grade: 9 }
              : { reason: 'checked', grade: v.response!.toLowerCase().includes(v.expected!.toLowerCase()) ? 4 : 1 },
        },
      ],
      { identity: 'judge-model-q8' },
    );
    const deps = {
      ...stubDeps(underTest, []),
      judgeLlm: judge,
      similarity: { embedder: new NgramEmbedder(), name: 'all-MiniLM-L6-v2' },
    };
    const result = await new EvalRun(options(dir, { languages: ['en'], datasetName: 'wikiqa' }), deps).run();
    expect(result).toMatchObject({ asked: 10, failed: 0 });
    expect(underTest.callsOf('eval/judge')).toHaveLength(0);
    expect(judge.callsOf('eval/judge').length).toBeGreaterThan(0);

    const rows = readFileSync(join(dir, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as EvalResultRow);
    const garbled = rows.find((r) => r.itemId === 'q3' && r.strategy === 'vector')!;
    expect(garbled.judgeError).toMatch(/schema/);
    expect(garbled.scores.judge).toBe(0); // counted, not left out of the mean
    expect(rows.every((r) => typeof r.scores.similarity === 'number')).toBe(true);

    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    // vector's judge mean is over all 5 answers: 1, 1, 0 (failure), 1, 0.25.
    expect(md).toContain(`| wikiqa | LLM-as-a-Judge (full answer) | ✓ | ${fmt([1, 1, 0, 1, 0.25])} |`);
    expect(md).toContain('| wikiqa | vector | 5 | 0 | 1 | ');
    expect(md).toContain('| wikiqa | dr | 5 | 0 | 0 | ');
    expect(md).toContain('Models: answers by scripted-llm; judge judge-model-q8; similarity by all-MiniLM-L6-v2.');
    expect(md).toContain('## Beside the papers');
    expect(md).toContain(
      '| wikiqa | Soft EM (full answer) | match | MDER-DR Table 1 | MDER-DR (gpt-oss:120b / gpt-oss:20b (judge too), mxbai-embed-large) | 0.800 ± 0.018 | dr 1.000 ± 0.000 | dr 1.000 ± 0.000 |',
    );
    expect(md).toContain(
      `| wikiqa | Soft EM (full answer) | match | MDER-DR Table 1 | GraphRAG (gpt-oss:120b / gpt-oss:20b (judge too), mxbai-embed-large) | 0.510 ± 0.022 | — | dr 1.000 ± 0.000 |`,
    );
    expect(md).toContain(
      `| wikiqa | LLM-as-a-Judge (full answer) | match | MDER-DR Table 1 | Vector-RAG (gpt-oss:120b / gpt-oss:20b (judge too), mxbai-embed-large) | 0.477 ± 0.022 | vector ${fmt([1, 1, 0, 1, 0.25])} |`,
    );
  });
});

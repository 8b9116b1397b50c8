import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvalReportView, KbSummary } from '../../src-main/engine/api/contract.js';
import type { Engine } from '../../src-main/engine/api/Engine.js';
import type { EvalRunResult } from '../../src-main/engine/eval/EvalRunOptions.js';
import { tinyBertDir } from '../fixtures/tinyBert.js';
import { tinyLlamaPath } from '../fixtures/tinyLlama.js';
import { call, runJobToEnd, tempEngine } from '../support/tempEngine.js';

// A benchmark run through the Api on the fixture models, as `polyhop eval run` drives it.
// The sample is three real MuSiQue dev questions (HopRAG JSONL) with only their supporting
// paragraphs: each question's 18 distractors would make ~300 chunks, and the random-weight
// model's map replies run to their token budget (~5 s a chunk on 2 cores). The three with the
// shortest supporting text are taken, so the KB is ~2 kB of text.
const SOURCE = join(import.meta.dirname, '../../../shared/data/musique/hoprag_musique_dev_example.jsonl');
const STRATEGIES = ['vector', 'llm-only'] as const;
const QUESTIONS = 3;

interface MusiqueParagraph {
  paragraph_text: string;
  is_supporting: boolean;
}

let engine: Engine;
let dispose: () => Promise<void>;
let dir: string;
let datasetPath: string;
let outDir: string;

beforeAll(async () => {
  const [ggufPath, bertDir] = await Promise.all([tinyLlamaPath(), tinyBertDir()]);
  ({ engine, dispose } = await tempEngine());
  dir = mkdtempSync(join(tmpdir(), 'polyhop-api-eval-'));
  datasetPath = join(dir, 'musique-sample.jsonl');
  outDir = join(dir, 'run');
  const records = readFileSync(SOURCE, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { paragraphs: MusiqueParagraph[] })
    .map((r) => ({ ...r, paragraphs: r.paragraphs.filter((p) => p.is_supporting) }))
    .map((r) => ({ r, size: r.paragraphs.reduce((n, p) => n + p.paragraph_text.length, 0) }))
    .sort((a, b) => a.size - b.size)
    .slice(0, QUESTIONS)
    .map(({ r }) => JSON.stringify(r));
  writeFileSync(datasetPath, `${records.join('\n')}\n`);

  await call(engine, 'models:load', { role: 'embedding', path: bertDir, threads: 1 });
  // 4096: the fixture's tokenizer is character-level, so a prompt takes ~4× the tokens it would on a real model.
  await call(engine, 'models:load', {
    role: 'generation',
    path: ggufPath,
    threads: 1,
    contextSize: 4096,
    sequences: 2,
  });
  await call(engine, 'system:setSettings', {
    settings: { concurrency: 2, strategyParams: { 'shared.answerMaxTokens': 24, 'shared.evidenceMaxTokens': 600 } },
  });
});

afterAll(async () => {
  await dispose?.();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('eval:run on the fixture models', () => {
  it('builds the KB, asks every question with each strategy, judges, and reports', async () => {
    const job = await runJobToEnd(engine, 'eval:run', {
      datasetPath,
      format: 'musique',
      strategies: [...STRATEGIES],
      limit: QUESTIONS,
      outDir,
      judge: true,
    });
    expect(job.error).toBeNull();
    expect(job.status).toBe('done');
    const result = job.result as EvalRunResult;
    expect(result).toMatchObject({ outDir, asked: QUESTIONS * STRATEGIES.length, skipped: 0, failed: 0 });
    expect(result.report).not.toBeNull();

    // The KB of the passages was built with the real pipeline: one document per supporting paragraph.
    const kbs = await call<KbSummary[]>(engine, 'kb:list', {});
    const evalKb = kbs.find((k) => k.name.startsWith('eval-'));
    expect(evalKb?.documentCount).toBe(QUESTIONS * 2);
    expect(evalKb?.entityCount).toBeGreaterThan(0);
    // Indexing cost is part of the run's record (and of the report's cost table).
    const manifest = JSON.parse(readFileSync(join(outDir, 'run.json'), 'utf8')) as {
      indexing?: {
        passages: number;
        reused: boolean;
        cost: { llmCalls: number; completionTokens: number; ms: number };
      };
    };
    expect(manifest.indexing).toMatchObject({ passages: QUESTIONS * 2, reused: false });
    expect(manifest.indexing!.cost.llmCalls).toBeGreaterThan(0);
    expect(manifest.indexing!.cost.completionTokens).toBeGreaterThan(0);
    expect(manifest.indexing!.cost.ms).toBeGreaterThan(0);

    const rows = readFileSync(join(outDir, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            strategy: string;
            answer: string | null;
            error?: unknown;
            scores: Record<string, number | null>;
            judge?: unknown;
            judgeError?: unknown;
            cost: { llmCalls: number };
          },
      );
    expect(rows).toHaveLength(QUESTIONS * STRATEGIES.length);
    for (const row of rows) {
      expect(row.error).toBeUndefined();
      expect(typeof row.answer).toBe('string');
      expect(row.cost.llmCalls).toBeGreaterThan(0);
      expect(row.scores.em).toBeTypeOf('number');
      expect(row.scores.f1).toBeTypeOf('number');
      // The judge ran on every answer (its grade may be anything for nonsense, its reply must be valid).
      expect(row.judgeError).toBeUndefined();
      expect(row.judge).toBeDefined();
    }
    expect(new Set(rows.map((r) => r.strategy))).toEqual(new Set(STRATEGIES));

    const report = await call<EvalReportView>(engine, 'eval:report', { outDir });
    expect(existsSync(join(outDir, 'report.md'))).toBe(true);
    expect(report.markdown).toBe(readFileSync(join(outDir, 'report.md'), 'utf8'));
    // A Markdown table: a header row, its separator, and a row per strategy.
    const lines = report.markdown.split('\n');
    const separator = lines.findIndex((l) => /^\|(\s*:?-+:?\s*\|)+\s*$/.test(l));
    expect(separator).toBeGreaterThan(0);
    expect(lines[separator - 1]).toMatch(/^\|.*\|$/);
    for (const strategy of STRATEGIES) expect(lines.some((l) => l.startsWith('|') && l.includes(strategy))).toBe(true);
    expect(report.rows.length).toBeGreaterThanOrEqual(STRATEGIES.length);
    // Sized by work (3 questions, 6 passages, real llama.cpp on the CPU): about 3 minutes on an idle
    // 2-core machine, over 5 with its cores busy; the limit only catches a hang.
  }, 900_000);

  it('run again on the same folder, it reuses the KB and skips every finished row', async () => {
    const again = await runJobToEnd(engine, 'eval:run', {
      datasetPath,
      format: 'musique',
      strategies: [...STRATEGIES],
      limit: QUESTIONS,
      outDir,
      judge: true,
    });
    expect(again.error).toBeNull();
    expect(again.result).toMatchObject({ asked: 0, skipped: QUESTIONS * STRATEGIES.length, failed: 0 });
    expect(readFileSync(join(outDir, 'results.jsonl'), 'utf8').trim().split('\n')).toHaveLength(
      QUESTIONS * STRATEGIES.length,
    );
  });
});

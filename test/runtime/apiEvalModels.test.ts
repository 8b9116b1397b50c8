import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src-main/engine/api/Engine.js';
import type { EvalManifest } from '../../src-main/engine/eval/EvalManifest.js';
import type { EvalResultRow } from '../../src-main/engine/eval/EvalResultRow.js';
import type { EvalRunResult } from '../../src-main/engine/eval/EvalRunOptions.js';
import { tinyBertDir } from '../fixtures/tinyBert.js';
import { tinyLlamaPath } from '../fixtures/tinyLlama.js';
import { call, runJobToEnd, tempEngine } from '../support/tempEngine.js';

// eval:run with a judge model and a similarity model named apart from the models under test,
// loaded for the run from their files (the fixture GGUF and ONNX folder stand in for them).
// One question over one short passage written for this test keeps indexing to a few calls.
let engine: Engine;
let dispose: () => Promise<void>;
let dir: string;
let ggufPath: string;
let bertDir: string;

beforeAll(async () => {
  [ggufPath, bertDir] = await Promise.all([tinyLlamaPath(), tinyBertDir()]);
  ({ engine, dispose } = await tempEngine());
  dir = mkdtempSync(join(tmpdir(), 'polyhop-api-eval-models-'));
  writeFileSync(
    join(dir, 'odyssey.jsonl'),
    `${JSON.stringify({ id: 'q1', question: 'Who was the wife of Odysseus?', answers: ['Penelope'], context: 'Penelope was the wife of Odysseus.', title: 'Penelope' })}\n`,
  );
  await call(engine, 'models:load', { role: 'embedding', path: bertDir, threads: 1 });
  await call(engine, 'models:load', {
    role: 'generation',
    path: ggufPath,
    threads: 1,
    contextSize: 4096,
    sequences: 2,
  });
  await call(engine, 'system:setSettings', {
    settings: { strategyParams: { 'shared.answerMaxTokens': 24, 'shared.evidenceMaxTokens': 600 } },
  });
});

afterAll(async () => {
  await dispose?.();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('eval:run with a named judge and similarity model', () => {
  it('judges with the second model, scores similarity with the named one, and reports both', async () => {
    const outDir = join(dir, 'run');
    const job = await runJobToEnd(engine, 'eval:run', {
      datasetPath: join(dir, 'odyssey.jsonl'),
      format: 'jsonl',
      strategies: ['llm-only'],
      limit: 1,
      outDir,
      judgeModel: { path: ggufPath, threads: 1, contextSize: 2048, sequences: 1 },
      similarityModel: { path: bertDir, threads: 1 },
    });
    expect(job.error).toBeNull();
    expect(job.result as EvalRunResult).toMatchObject({ asked: 1, failed: 0 });
    const manifest = JSON.parse(readFileSync(join(outDir, 'run.json'), 'utf8')) as EvalManifest;
    expect(manifest.models?.generation).toMatch(/tiny-llama/);
    expect(manifest.models?.judge).toMatch(/tiny-llama/); // the same file here, so the same identity
    expect(manifest.models?.similarity).toBe('tiny-bert');
    const [row] = readFileSync(join(outDir, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as EvalResultRow);
    expect(row!.scores.similarity).toBeTypeOf('number');
    expect(row!.scores.judge).toBeTypeOf('number'); // a grade, or 0 with judgeError: never missing
    expect(typeof row!.shortAnswer).toBe('string');
    const md = readFileSync(join(outDir, 'report.md'), 'utf8');
    expect(md).toContain('similarity by tiny-bert');
    expect(md).toContain(`judge ${manifest.models!.judge} (the model under test)`);
    // The judge was loaded apart: the engine's generation model is still the one loaded with 4096 × 2, not the judge's 2048 × 1.
    const status = await call<{ generation: { path: string; explanation: string } | null }>(
      engine,
      'models:status',
      {},
    );
    expect(status.generation?.path).toBe(ggufPath);
    expect(status.generation?.explanation).toMatch(/context 4096 tokens × 2 sequences/);
  }, 600_000);
});

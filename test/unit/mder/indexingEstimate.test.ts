import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddDocumentsResult } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import {
  estimateIndexing,
  MEASURED_INDEXING_RATES,
  PAGE_CHARS,
} from '../../../src-main/engine/mder/indexingEstimate.js';
import { RTX_3090_LLAMA_8B } from '../../../src-main/engine/models/gpuThroughput.js';
import { polyhopInProcess } from '../../support/cliInProcess.js';
import { call, tempEngine } from '../../support/tempEngine.js';

describe('estimateIndexing', () => {
  it('times the measured tokens per character at the GPU profile rates, 4 sequences decoding together', () => {
    const chars = 1000 * PAGE_CHARS;
    const { inputPerChar, outputPerChar } = MEASURED_INDEXING_RATES;
    const expected =
      (chars * inputPerChar) / RTX_3090_LLAMA_8B.promptTokensPerSecond +
      (chars * outputPerChar) / RTX_3090_LLAMA_8B.decodeTokensPerSecond[3]!;
    const estimate = estimateIndexing(chars);
    expect(estimate.seconds).toBeCloseTo(expected, 6);
    expect(estimateIndexing(2 * chars).seconds).toBeCloseTo(2 * expected, 6);
    expect(estimate.text).toMatch(/^about (\d+ h)?( ?\d+ min)? on an RTX 3090 with Qwen3-8B Q4_K_M$/);
    // One sequence decodes slower than four in a batch.
    expect(estimateIndexing(chars, { parallel: 1 }).seconds).toBeGreaterThan(estimate.seconds);
  });
});

describe('docs:add says how long indexing may take', () => {
  let engine: Engine;
  let dispose: () => Promise<void>;
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-estimate-'));

  beforeAll(async () => {
    ({ engine, dispose } = await tempEngine());
    await call(engine, 'kb:create', { name: 'est' });
  });
  afterAll(async () => {
    await dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts text files by size and names the PDF it cannot count yet', async () => {
    writeFileSync(join(dir, 'a.txt'), 'word '.repeat(6000));
    writeFileSync(join(dir, 'b.md'), '# Title\n\nSome text.\n');
    writeFileSync(join(dir, 'c.pdf'), '%PDF-1.4\n%%EOF\n');
    const result = await call<AddDocumentsResult>(engine, 'docs:add', { kb: 'est', paths: [dir] });
    expect(result.added).toHaveLength(3);
    const chars = result.added.filter((d) => !d.path.endsWith('.pdf')).reduce((sum, d) => sum + d.size, 0);
    expect(result.estimate).toMatchObject({ documents: 2, uncounted: 1, gpu: 'RTX 3090', model: 'Qwen3-8B Q4_K_M' });
    expect(result.estimate!.seconds).toBeCloseTo(estimateIndexing(chars).seconds, 6);

    const unchanged = await call<AddDocumentsResult>(engine, 'docs:add', { kb: 'est', paths: [dir] });
    expect(unchanged.estimate).toBeUndefined();
  });
});

describe('polyhop add', () => {
  it('prints the estimate before `polyhop index`', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'polyhop-estimate-cli-'));
    try {
      writeFileSync(join(dir, 'a.txt'), 'word '.repeat(60_000));
      expect((await polyhopInProcess(dir, ['kb', 'create', 'est'])).code).toBe(0);
      const run = await polyhopInProcess(dir, ['add', join(dir, 'a.txt'), '--kb', 'est']);
      expect(run.code).toBe(0);
      expect(run.out).toContain(
        `Indexing 1 text document(s): ${estimateIndexing(300_000).text} (estimate; run \`polyhop index\`).`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

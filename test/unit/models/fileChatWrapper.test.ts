import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { polyhopInProcess } from '../../support/cliInProcess.js';
import { ModelManager } from '../../../src-main/engine/models/ModelManager.js';
import { TEMPLATED_MODELS, templatedLlamaPath, type TemplatedModelSpec } from '../../fixtures/templatedLlama.js';

/**
 * `polyhop models info` and the Models screen (models:inspect) say which chat wrapper a model file
 * resolves to and whether it reasons, from the GGUF header alone: no weights are loaded. The
 * expectations are the ones test/runtime/catalogTemplates.test.ts checks on the loaded models.
 */
const CASES: [string, TemplatedModelSpec, { wrapper: string; reasons: boolean; switchable: boolean }][] = [
  ['Qwen3-8B', TEMPLATED_MODELS.qwen3, { wrapper: 'Qwen (variation 3)', reasons: true, switchable: true }],
  [
    'Qwen3-4B-Instruct-2507',
    TEMPLATED_MODELS.qwen3Instruct,
    { wrapper: 'Qwen (variation 3)', reasons: false, switchable: false },
  ],
  ['gpt-oss-20b', TEMPLATED_MODELS.gptOss, { wrapper: 'Harmony', reasons: true, switchable: true }],
  [
    'QwQ-32B (the thought opens at response start)',
    TEMPLATED_MODELS.qwq,
    { wrapper: 'Qwen (variation 3.5)', reasons: true, switchable: false },
  ],
];

describe('chat wrapper of a model file that is not loaded', () => {
  const manager = new ModelManager({ modelsDir: '/nonexistent', catalogPath: '/nonexistent/catalog.json' });

  it.each(CASES)(
    '%s: models:inspect names the wrapper and whether it reasons',
    async (_label, spec, expected) => {
      const info = await manager.inspect(await templatedLlamaPath(spec));
      expect(info.chat).toEqual(expected);
    },
    60_000,
  );
});

describe('polyhop models info', () => {
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-models-info-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the chat wrapper and whether the model reasons', async () => {
    const thinking = await polyhopInProcess(dir, ['models', 'info', await templatedLlamaPath(TEMPLATED_MODELS.qwen3)]);
    expect(thinking.code, thinking.err).toBe(0);
    expect(thinking.out).toContain(
      'chat wrapper: Qwen (variation 3); reasons; steps without reasoning switch it off with its template',
    );
    const qwq = await polyhopInProcess(dir, ['models', 'info', await templatedLlamaPath(TEMPLATED_MODELS.qwq)]);
    expect(qwq.out).toContain(
      'chat wrapper: Qwen (variation 3.5); always reasons (its template has no switch to turn it off)',
    );
  }, 60_000);
});

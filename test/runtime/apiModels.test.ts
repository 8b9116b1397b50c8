import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer, KbInfo, ModelInfo, ModelStatus, Settings } from '../../src-main/engine/api/contract.js';
import type { Engine } from '../../src-main/engine/api/Engine.js';
import { tinyBertDir, TINY_BERT_HIDDEN_SIZE } from '../fixtures/tinyBert.js';
import { tinyLlamaPath } from '../fixtures/tinyLlama.js';
import { call, runJobToEnd, tempEngine } from '../support/tempEngine.js';

// The real runtimes behind the Api, driven as a user drives them: no injected models, the
// generated fixture GGUF and ONNX folder loaded with `models:load`. threads 1: more threads than
// free cores makes llama.cpp far slower on shared machines.
let engine: Engine;
let dispose: () => Promise<void>;
let docsDir: string;
let ggufPath: string;
let bertDir: string;

beforeAll(async () => {
  [ggufPath, bertDir] = await Promise.all([tinyLlamaPath(), tinyBertDir()]);
  ({ engine, dispose } = await tempEngine());
  docsDir = mkdtempSync(join(tmpdir(), 'polyhop-api-models-docs-'));
});

afterAll(async () => {
  await dispose?.();
  if (docsDir) rmSync(docsDir, { recursive: true, force: true });
});

describe('models through the Api', () => {
  it('loads both fixture models and reports how they run', async () => {
    const before = await call<{ generation: ModelStatus | null; embedding: ModelStatus | null }>(
      engine,
      'models:status',
      {},
    );
    expect(before).toEqual({ generation: null, embedding: null });

    const embedding = await call<ModelStatus>(engine, 'models:load', { role: 'embedding', path: bertDir, threads: 1 });
    const generation = await call<ModelStatus>(engine, 'models:load', {
      role: 'generation',
      path: ggufPath,
      threads: 1,
      contextSize: 2048,
      sequences: 2,
    });
    expect(embedding).toMatchObject({ role: 'embedding', path: bertDir, dimension: TINY_BERT_HIDDEN_SIZE });
    expect(generation).toMatchObject({
      role: 'generation',
      path: ggufPath,
      contextSize: 2048,
      sequences: 2,
      threads: 1,
    });

    const status = await call<{ generation: ModelStatus; embedding: ModelStatus }>(engine, 'models:status', {});
    expect(status.generation).toEqual(generation);
    expect(status.embedding).toEqual(embedding);
    expect(status.embedding.backend).toMatch(/^onnxruntime/);
    expect(status.embedding.explanation).toMatch(/ONNX/);
    expect(status.generation.backend).toMatch(/\S/);
    // The fixture has 2 blocks; llama.cpp counts the output layer too.
    expect(status.generation.totalLayers).toBe(3);
    // A CPU build offloads nothing; a GPU build offloads the whole tiny model (it fits any GPU).
    expect(status.generation.gpuLayers).toBe(status.generation.backend === 'cpu' ? 0 : status.generation.totalLayers);
    expect(status.generation.explanation).toContain('2048 tokens × 2 sequences');
    expect(status.generation.explanation).toContain('1 threads');

    // The selection is remembered, so every front door loads the same models.
    const settings = await call<Settings>(engine, 'system:getSettings', {});
    expect(settings.generationModel).toMatchObject({ path: ggufPath, threads: 1, contextSize: 2048, sequences: 2 });
    expect(settings.embeddingModel).toMatchObject({ path: bertDir });
  });

  it('models:try answers with text and token counts', async () => {
    const reply = await call<{ text: string; promptTokens: number; completionTokens: number; ms: number }>(
      engine,
      'models:try',
      { prompt: 'Say hello.', maxTokens: 16 },
    );
    expect(reply.text.trim()).not.toBe('');
    expect(reply.promptTokens).toBeGreaterThan(0);
    expect(reply.completionTokens).toBeGreaterThan(0);
    expect(reply.completionTokens).toBeLessThanOrEqual(16);
    expect(reply.ms).toBeGreaterThan(0);
  });

  it('models:inspect reads the GGUF metadata', async () => {
    const info = await call<ModelInfo>(engine, 'models:inspect', { path: ggufPath });
    expect(info.architecture).toBe('llama');
    expect(info.contextLength).toBe(2048);
    expect(info.embeddingLength).toBe(64);
    expect(info.chatTemplate).toContain('<|im_start|>');
    const onnx = await call<ModelInfo>(engine, 'models:inspect', { path: bertDir });
    expect(onnx.architecture).toMatch(/bert/i);
  });

  it('a KB embedded with one model refuses another, offering re-embedding; a new KB takes it', async () => {
    const doc = join(docsDir, 'ithaca.txt');
    writeFileSync(doc, 'Odysseus was the king of Ithaca. His wife was Penelope. Their son was Telemachus.\n');
    await call(engine, 'kb:create', { name: 'onnx-kb' });
    await call(engine, 'docs:add', { kb: 'onnx-kb', paths: [doc] });
    const indexed = await runJobToEnd(engine, 'index:start', { kb: 'onnx-kb' });
    expect(indexed.error).toBeNull();
    expect(indexed.status).toBe('done');
    const onnxIdentity = (await call<{ embedding: ModelStatus }>(engine, 'models:status', {})).embedding.identity;
    const onnxInfo = await call<KbInfo>(engine, 'kb:info', { kb: 'onnx-kb' });
    expect(onnxInfo.embedder).toEqual({ identity: onnxIdentity, dimension: TINY_BERT_HIDDEN_SIZE });
    expect(onnxInfo.chunkCount).toBeGreaterThan(0);

    // The fixture GGUF as a (llama.cpp) embedding model: another identity and dimension.
    const gguf = await call<ModelStatus>(engine, 'models:load', {
      role: 'embedding',
      path: ggufPath,
      threads: 1,
      contextSize: 512,
    });
    expect(gguf.backend).toBe('llama.cpp');
    expect(gguf.identity).not.toBe(onnxIdentity);

    for (const [method, payload] of [
      ['qa:ask', { kb: 'onnx-kb', question: 'Who was the wife of the king of Ithaca?', strategy: 'vector' }],
      ['index:start', { kb: 'onnx-kb' }],
    ] as const) {
      const refused = await runJobToEnd(engine, method, payload);
      expect(refused.status, method).toBe('failed');
      expect(refused.error?.code, method).toBe('CONFLICT');
      expect(refused.error?.message, method).toContain(onnxIdentity);
      expect(refused.error?.message, method).toContain(gguf.identity);
      expect(refused.error?.message, method).toMatch(/re-embed/);
      expect(refused.error?.details, method).toMatchObject({ remedy: 're-embed' });
    }
    // Refusing changed nothing: the KB keeps its embedder and its vectors.
    expect(await call<KbInfo>(engine, 'kb:info', { kb: 'onnx-kb' })).toMatchObject({
      embedder: onnxInfo.embedder,
      chunkCount: onnxInfo.chunkCount,
    });

    // A fresh KB has no recorded embedder and takes the GGUF one.
    await call(engine, 'kb:create', { name: 'gguf-kb' });
    await call(engine, 'docs:add', { kb: 'gguf-kb', paths: [doc] });
    const ggufIndexed = await runJobToEnd(engine, 'index:start', { kb: 'gguf-kb' });
    expect(ggufIndexed.error).toBeNull();
    const asked = await runJobToEnd(engine, 'qa:ask', {
      kb: 'gguf-kb',
      question: 'Who was the wife of the king of Ithaca?',
      strategy: 'vector',
      retrievalOnly: true,
    });
    expect(asked.status).toBe('done');
    expect((asked.result as Answer).retrievalOnly).toBe(true);
    expect((asked.result as Answer).evidence.length).toBeGreaterThan(0);
    expect((await call<KbInfo>(engine, 'kb:info', { kb: 'gguf-kb' })).embedder).toEqual({
      identity: gguf.identity,
      dimension: gguf.dimension,
    });
  });
});

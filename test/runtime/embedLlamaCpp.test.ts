import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolyhopError } from '../../src-main/engine/base/errors.js';
import { cosine } from '../../src-main/engine/models/Embedder.js';
import { LlamaCppEmbedder } from '../../src-main/engine/models/LlamaCppEmbedder.js';
import { tinyLlamaPath } from '../fixtures/tinyLlama.js';

// threads: 1 everywhere: on small shared machines more threads make llama.cpp far slower.
let modelPath: string;
let scratch: string;
let embedder: LlamaCppEmbedder;

beforeAll(async () => {
  modelPath = await tinyLlamaPath();
  scratch = await mkdtemp(join(tmpdir(), 'polyhop-embed-gguf-'));
  embedder = await LlamaCppEmbedder.create({ modelPath, threads: 1, contextSize: 512 });
});

afterAll(async () => {
  await embedder?.dispose();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const TEXTS = [
  'The capital of France is Paris.',
  'Marie Curie was born in Warsaw.',
  'x',
  '',
  'A longer sentence about rivers, bridges and towers in old European towns.',
];

describe('LlamaCppEmbedder on the tiny llama GGUF', () => {
  it('returns normalised vectors of the model dimension, also for empty text', async () => {
    expect(embedder.dimension).toBe(64); // the fixture's embedding_length
    expect(embedder.identity).toMatch(/^llama\.cpp:tiny-llama-.*\.gguf:[0-9a-f]{12}$/);
    const vectors = await embedder.embed(TEXTS);
    expect(vectors).toHaveLength(TEXTS.length);
    for (const v of vectors) {
      expect(v.length).toBe(64);
      expect(v.every(Number.isFinite)).toBe(true);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    expect(cosine(vectors[0]!, vectors[1]!)).toBeLessThan(0.9999);
  });

  it('gives the same vectors batched, one at a time, and over parallel contexts', async () => {
    const parallel = await LlamaCppEmbedder.create({
      modelPath,
      threads: 1,
      contextSize: 512,
      contexts: 2,
      batchSize: 3,
    });
    try {
      const batched = await embedder.embed(TEXTS);
      const spread = await parallel.embed(TEXTS);
      expect(parallel.identity).toBe(embedder.identity);
      for (let i = 0; i < TEXTS.length; i++) {
        const [alone] = await embedder.embed([TEXTS[i]!]);
        for (const other of [alone!, spread[i]!]) expect(cosine(batched[i]!, other)).toBeCloseTo(1, 5);
      }
    } finally {
      await parallel.dispose();
    }
  });

  it('embeds a text longer than the context in windows: its end changes its vector', async () => {
    const start = 'river stone '.repeat(600);
    const [long, otherEnd, alone] = await embedder.embed([
      `${start}${'mountain snow '.repeat(300)}`,
      `${start}${'city light '.repeat(300)}`,
      start,
    ]);
    expect(norm(long!)).toBeCloseTo(1, 5);
    // Truncated at the context, all three would be the vector of their shared start.
    expect(cosine(long!, otherEnd!)).toBeLessThan(0.9999);
    expect(cosine(long!, alone!)).toBeLessThan(0.9999);
  });

  it('applies query/passage prefixes, recognised from an e5 file name or given', async () => {
    const e5Path = join(scratch, 'tiny-multilingual-e5.gguf');
    await symlink(modelPath, e5Path);
    const e5 = await LlamaCppEmbedder.create({ modelPath: e5Path, threads: 1, contextSize: 512 });
    try {
      expect(e5.prefixes).toEqual({ query: 'query: ', passage: 'passage: ' });
      expect(embedder.prefixes).toEqual({ query: '', passage: '' });
      const text = 'Who discovered radium?';
      const [asQuery] = await e5.embed([text], { purpose: 'query' });
      const [asPassage] = await e5.embed([text], { purpose: 'passage' });
      const [manualQuery, manualPassage] = await embedder.embed([`query: ${text}`, `passage: ${text}`]);
      expect(cosine(asQuery!, asPassage!)).toBeLessThan(0.9999);
      expect(cosine(asQuery!, manualQuery!)).toBeCloseTo(1, 5);
      expect(cosine(asPassage!, manualPassage!)).toBeCloseTo(1, 5);
    } finally {
      await e5.dispose();
    }
    const custom = await LlamaCppEmbedder.create({
      modelPath,
      threads: 1,
      contextSize: 512,
      queryPrefix: 'search_query: ',
    });
    try {
      expect(custom.identity).not.toBe(embedder.identity);
      const [q] = await custom.embed(['radium'], { purpose: 'query' });
      const [p] = await custom.embed(['radium']);
      expect(cosine(q!, p!)).toBeLessThan(0.9999);
    } finally {
      await custom.dispose();
    }
  });

  it('names the file when it is missing or not a GGUF', async () => {
    const absent = join(scratch, 'absent.gguf');
    await expect(LlamaCppEmbedder.create({ modelPath: absent })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringContaining(absent),
    });

    const garbage = join(scratch, 'garbage.gguf');
    await writeFile(garbage, 'this is not a gguf file'.repeat(100));
    const error = await LlamaCppEmbedder.create({ modelPath: garbage, threads: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PolyhopError);
    expect((error as PolyhopError).code).toBe('MODEL_ERROR');
    expect((error as PolyhopError).message).toContain(garbage);
  });

  it('stops at a cancelled signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(embedder.embed(['a'], { signal: controller.signal })).rejects.toMatchObject({ code: 'CANCELLED' });
  });
});

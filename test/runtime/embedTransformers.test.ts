import { cp, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { env } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolyhopError } from '../../src-main/engine/base/errors.js';
import { cosine } from '../../src-main/engine/models/Embedder.js';
import { TransformersEmbedder } from '../../src-main/engine/models/TransformersEmbedder.js';
import { TINY_BERT_HIDDEN_SIZE, tinyBertDir } from '../fixtures/tinyBert.js';

// Any network attempt is recorded and fails: the hub host points at a closed local port and both
// fetch functions transformers.js could use are spies.
const fetched: string[] = [];
const realFetch = globalThis.fetch;
const spyFetch = async (input: string | URL | Request): Promise<Response> => {
  fetched.push(String(input instanceof Request ? input.url : input));
  throw new Error('network is not allowed in tests');
};

let modelDir: string;
let scratch: string;
let embedder: TransformersEmbedder;

beforeAll(async () => {
  env.remoteHost = 'http://127.0.0.1:9/';
  env.fetch = spyFetch;
  globalThis.fetch = spyFetch as typeof fetch;
  modelDir = await tinyBertDir();
  scratch = await mkdtemp(join(tmpdir(), 'polyhop-embed-onnx-'));
  embedder = await TransformersEmbedder.create({ modelDir, threads: 1 });
});

afterAll(async () => {
  await embedder?.dispose();
  globalThis.fetch = realFetch;
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

const PAIRS: Array<[anchor: string, nearDuplicate: string, unrelated: string]> = [
  [
    'The capital of France is Paris.',
    'The capital of France is Paris!',
    'Photosynthesis converts sunlight into chemical energy.',
  ],
  [
    'Marie Curie was born in Warsaw in 1867.',
    'Marie Curie was born in Warsaw, in 1867',
    'The quick brown fox jumps over the lazy dog.',
  ],
  [
    'The river flows north through the old town.',
    'the river flows north through the old city',
    'Software models answer questions over a knowledge graph.',
  ],
];

describe('TransformersEmbedder on the tiny ONNX BERT', () => {
  it('returns normalised vectors of the model dimension', async () => {
    expect(embedder.dimension).toBe(TINY_BERT_HIDDEN_SIZE);
    expect(embedder.device).toBe('cpu');
    expect(embedder.pooling).toBe('mean');
    const vectors = await embedder.embed(['alpha beta', 'A longer sentence about the history of Rome.', '']);
    expect(vectors).toHaveLength(3);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(TINY_BERT_HIDDEN_SIZE);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    expect(cosine(vectors[0]!, vectors[1]!)).toBeLessThan(0.99);
  });

  it.each(['mean', 'cls'] as const)('scores near-duplicates above unrelated texts (%s pooling)', async (pooling) => {
    const e = pooling === 'mean' ? embedder : await TransformersEmbedder.create({ modelDir, pooling, threads: 1 });
    try {
      for (const [anchor, near, far] of PAIRS) {
        const [a, n, f] = await e.embed([anchor, near, far]);
        expect(cosine(a!, n!)).toBeGreaterThan(0.75);
        expect(cosine(a!, n!)).toBeGreaterThan(cosine(a!, f!) + 0.2);
      }
    } finally {
      if (e !== embedder) await e.dispose();
    }
    expect(fetched).toEqual([]);
  });

  it('embeds a text past the 512-token window in windows and pools them: its end changes its vector', async () => {
    const start = 'the history of rome and its roads '.repeat(90);
    const [long, otherEnd, short] = await embedder.embed([
      `${start}${'software models answer questions '.repeat(60)}`,
      `${start}${'alpha beta gamma delta '.repeat(60)}`,
      'alpha beta',
    ]);
    for (const v of [long!, otherEnd!]) expect(norm(v)).toBeCloseTo(1, 5);
    // Truncated at 512 tokens, both would be the vector of their shared start.
    expect(cosine(long!, otherEnd!)).toBeLessThan(0.9999);
    // A short text in the same batch is embedded whole, as alone.
    const [alone] = await embedder.embed(['alpha beta']);
    expect(cosine(short!, alone!)).toBeCloseTo(1, 5);
  });

  it('gives the same vectors in a padded batch as one text at a time, in input order', async () => {
    const texts = PAIRS.flat().concat([
      'x',
      'A much longer text that forces plenty of padding onto every shorter text in the same batch.',
    ]);
    const single = await TransformersEmbedder.create({ modelDir, batchSize: 1, threads: 1 });
    try {
      const batched = await embedder.embed(texts);
      const oneByOne = await single.embed(texts);
      expect(single.identity).toBe(embedder.identity); // batch size changes no vector
      for (let i = 0; i < texts.length; i++) {
        const [alone] = await embedder.embed([texts[i]!]);
        for (const other of [oneByOne[i]!, alone!]) {
          expect(Math.max(...batched[i]!.map((x, k) => Math.abs(x - other[k]!)))).toBeLessThan(1e-5);
        }
      }
    } finally {
      await single.dispose();
    }
  });

  it('applies e5 query/passage prefixes recognised from the folder name, and overrides', async () => {
    const e5Dir = join(scratch, 'tiny-multilingual-e5-small');
    await symlink(modelDir, e5Dir, 'dir');
    const e5 = await TransformersEmbedder.create({ modelDir: e5Dir, threads: 1 });
    const plain = await TransformersEmbedder.create({
      modelDir: e5Dir,
      queryPrefix: '',
      passagePrefix: '',
      threads: 1,
    });
    try {
      expect(e5.prefixes).toEqual({ query: 'query: ', passage: 'passage: ' });
      expect(embedder.prefixes).toEqual({ query: '', passage: '' });
      expect(plain.identity).not.toBe(e5.identity);

      const text = 'Who founded the university?';
      const [asQuery] = await e5.embed([text], { purpose: 'query' });
      const [asPassage] = await e5.embed([text]);
      const [manualQuery, manualPassage] = await plain.embed([`query: ${text}`, `passage: ${text}`]);
      expect(cosine(asQuery!, asPassage!)).toBeLessThan(0.9999);
      expect(cosine(asQuery!, manualQuery!)).toBeCloseTo(1, 6);
      expect(cosine(asPassage!, manualPassage!)).toBeCloseTo(1, 6);
      // Without prefixes the purpose changes nothing.
      const [q, p] = [
        ...(await plain.embed([text], { purpose: 'query' })),
        ...(await plain.embed([text], { purpose: 'passage' })),
      ];
      expect(cosine(q!, p!)).toBeCloseTo(1, 6);
    } finally {
      await e5.dispose();
      await plain.dispose();
    }
  });

  it('names the folder and the missing files', async () => {
    const broken = join(scratch, 'no-tokenizer');
    await cp(modelDir, broken, { recursive: true });
    await rm(join(broken, 'tokenizer.json'));
    await rm(join(broken, 'onnx'), { recursive: true });
    const error = await TransformersEmbedder.create({ modelDir: broken }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PolyhopError);
    expect((error as PolyhopError).code).toBe('BAD_INPUT');
    expect((error as PolyhopError).message).toContain(broken);
    expect((error as PolyhopError).message).toContain('tokenizer.json');
    expect((error as PolyhopError).message).toContain('onnx/model.onnx');
    expect((error as PolyhopError).details.missing).toEqual([
      'tokenizer.json',
      expect.stringContaining('onnx/model.onnx'),
    ]);

    const absent = join(scratch, 'does-not-exist');
    await expect(TransformersEmbedder.create({ modelDir: absent })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringContaining(absent),
    });
  });

  it('stops at a cancelled signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(embedder.embed(['a', 'b'], { signal: controller.signal })).rejects.toMatchObject({
      code: 'CANCELLED',
    });
  });

  it('never tried the network and keeps remote models disabled', () => {
    expect(env.allowRemoteModels).toBe(false);
    expect(fetched).toEqual([]);
  });
});

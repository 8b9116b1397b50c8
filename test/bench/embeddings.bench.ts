import { parseArgs } from 'node:util';
import type { Embedder } from '../../src-main/engine/models/Embedder.js';
import { LlamaCppEmbedder } from '../../src-main/engine/models/LlamaCppEmbedder.js';
import { TransformersEmbedder } from '../../src-main/engine/models/TransformersEmbedder.js';
import { tinyBertDir } from '../fixtures/tinyBert.js';
import { tinyLlamaPath } from '../fixtures/tinyLlama.js';

/**
 * Embedding throughput (texts/s) at batch 1 vs batch 32 for both backends on the fixture models;
 * batch 1 is the baseline of each ratio. For llama.cpp, whose embedding context takes one text at a
 * time, a third row spreads batch 32 over `--contexts` parallel contexts.
 *
 *   npm run bench embeddings -- --n 512 --threads 2 --contexts 2 --llama-width 512 --llama-blocks 4
 */
export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: false,
    options: {
      n: { type: 'string', default: '512' },
      threads: { type: 'string', default: '1' },
      contexts: { type: 'string', default: '2' },
      'llama-width': { type: 'string', default: '64' },
      'llama-blocks': { type: 'string', default: '2' },
    },
  });
  const n = Number(values.n);
  const threads = Number(values.threads);
  const contexts = Number(values.contexts);
  const texts = benchTexts(n);
  console.log(`${n} texts of 4–40 words, ${threads} thread(s) per model`);

  const modelDir = await tinyBertDir();
  const onnx = await measure('onnx (transformers.js)', texts, [1, 32], (batchSize) =>
    TransformersEmbedder.create({ modelDir, batchSize, threads }),
  );

  const modelPath = await tinyLlamaPath({
    embeddingLength: Number(values['llama-width']),
    blockCount: Number(values['llama-blocks']),
  });
  const llamaOptions = { modelPath, threads, contextSize: 512 };
  const gguf = await measure('gguf (node-llama-cpp)', texts, [1, 32], (batchSize) =>
    LlamaCppEmbedder.create({ ...llamaOptions, batchSize }),
  );
  const spread = await measure(`gguf, ${contexts} contexts`, texts, [32], (batchSize) =>
    LlamaCppEmbedder.create({ ...llamaOptions, batchSize, contexts }),
  );

  console.log(`onnx  batch 32 / batch 1: ${ratio(onnx[1], onnx[0])}`);
  console.log(`gguf  batch 32 / batch 1: ${ratio(gguf[1], gguf[0])}`);
  console.log(`gguf  batch 32 × ${contexts} contexts / batch 1: ${ratio(spread[0], gguf[0])}`);
}

/** Texts/s for each batch size; one warm-up pass per embedder is not timed. */
async function measure(
  label: string,
  texts: string[],
  batchSizes: number[],
  create: (batchSize: number) => Promise<Embedder>,
): Promise<number[]> {
  const rates: number[] = [];
  for (const batchSize of batchSizes) {
    const embedder = await create(batchSize);
    try {
      await embedder.embed(texts.slice(0, Math.min(32, texts.length)));
      const start = performance.now();
      await embedder.embed(texts);
      const seconds = (performance.now() - start) / 1000;
      rates.push(texts.length / seconds);
      console.log(
        `${label.padEnd(26)} batch ${String(batchSize).padStart(2)}: ${(texts.length / seconds).toFixed(1).padStart(8)} texts/s  (dim ${embedder.dimension})`,
      );
    } finally {
      await embedder.dispose();
    }
  }
  return rates;
}

function ratio(a: number | undefined, b: number | undefined): string {
  return a && b ? `${(a / b).toFixed(2)}×` : 'n/a';
}

const WORDS =
  'the river city king war film album song band novel author team club season league church village town county region capital island mountain lake north south born died founded released published written directed located between during before after known called museum park garden history science energy light water plant animal computer network question answer graph knowledge document'.split(
    ' ',
  );

/** Deterministic sentences of varied length (a linear congruential generator, seed 1). */
function benchTexts(n: number): string[] {
  let state = 1;
  const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 4294967296;
  return Array.from({ length: n }, () =>
    Array.from({ length: 4 + Math.floor(next() * 37) }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' '),
  );
}

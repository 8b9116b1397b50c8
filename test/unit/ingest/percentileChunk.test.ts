import { describe, expect, it } from 'vitest';
import { semanticChunk } from '../../../src-main/engine/ingest/index.js';
import { cosine } from '../../../src-main/engine/models/Embedder.js';
import { CrowdedEmbedder } from '../mder/support/CrowdedEmbedder.js';
import { seededRandom } from '../../support/seededRandom.js';

/** Three topics, each with its own vocabulary; sentences are drawn from it with a seeded PRNG. */
const TOPICS = {
  cats: ['cat', 'kitten', 'purrs', 'whiskers', 'mice', 'felines', 'litter', 'claws', 'tabby', 'barn'],
  rockets: ['rocket', 'engine', 'kerosene', 'oxygen', 'thrust', 'nozzle', 'turbopump', 'launch', 'orbit', 'propellant'],
  bread: ['bread', 'dough', 'yeast', 'flour', 'oven', 'crust', 'knead', 'loaf', 'sourdough', 'bakery'],
} as const;
const FILLERS = [
  'usually',
  'often',
  'in the morning',
  'near the town',
  'as expected',
  'for hours',
  'with care',
  'every day',
];

function sentences(topic: keyof typeof TOPICS, n: number, random: () => number): string[] {
  const words = TOPICS[topic];
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  return Array.from(
    { length: n },
    () => `The ${pick(words)} and the ${pick(words)} ${pick(FILLERS)} need a ${pick(words)}.`,
  );
}

describe('semanticChunk on an e5-like crowded similarity scale', () => {
  const embedder = new CrowdedEmbedder({ concepts: Object.values(TOPICS), crowding: 0.8 });
  const random = seededRandom(7);
  const parts = [sentences('cats', 14, random), sentences('rockets', 13, random), sentences('bread', 13, random)];
  const text = parts.map((p) => p.join(' ')).join(' ');

  it('every adjacent window is above the paper’s 0.75, so the absolute breakpoint never splits', async () => {
    const windows = await embedder.embed([parts[0]!.slice(-2).join(' '), parts[1]!.slice(0, 2).join(' ')]);
    expect(cosine(windows[0]!, windows[1]!)).toBeGreaterThan(0.75);
    const chunks = await semanticChunk(text, { embedder, threshold: 0.75, maxTokens: 4000, language: 'en' });
    expect(chunks).toHaveLength(1);
  });

  it('the percentile breakpoint (default) splits exactly at the two topic changes', async () => {
    const chunks = await semanticChunk(text, { embedder, maxTokens: 4000, language: 'en' });
    expect(chunks.map((c) => c.text)).toEqual(parts.map((p) => p.join(' ')));
  });

  it('a short single-gap text is not split, and the percentile is checked', async () => {
    expect(await semanticChunk('The cat purrs. The rocket launches.', { embedder, language: 'en' })).toHaveLength(1);
    await expect(semanticChunk(text, { embedder, breakpointPercentile: 101 })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { estimateTokens, fixedSizeChunk, semanticChunk } from '../../../src-main/engine/ingest/index.js';
import type { NewChunk } from '../../../src-main/engine/kb/types.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';

function expectExactOffsets(text: string, chunks: NewChunk[]): void {
  chunks.forEach((c, i) => {
    expect(c.ord).toBe(i);
    expect(c.text).toBe(text.slice(c.startOffset, c.endOffset));
    expect(c.text).toBe(c.text.trim());
    if (i > 0) expect(c.startOffset).toBeGreaterThan(chunks[i - 1]!.startOffset);
  });
}

const CATS = [
  'Cats are small domestic felines that purr and hunt mice.',
  'Domestic cats purr softly and hunt mice at night.',
  'Many domestic cats purr and chase mice in barns.',
  'A cat purrs while it hunts mice near the barn.',
];
const ROCKETS = [
  'Rocket engines burn liquid oxygen and kerosene propellant.',
  'Liquid propellant rocket engines need oxygen and fuel pumps.',
  'Kerosene and liquid oxygen feed the rocket engine turbopumps.',
  'Rocket engine propellant pumps move oxygen and kerosene.',
];

describe('semanticChunk', () => {
  it('cuts where the topic changes (two-topic text, n-gram embedder), with exact offsets', async () => {
    const text = [...CATS, ...ROCKETS].join(' ');
    const embedder = new NgramEmbedder();
    const chunks = await semanticChunk(text, {
      embedder,
      threshold: 0.4,
      windowSentences: 2,
      batchSize: 3,
      language: 'en',
    });
    expectExactOffsets(text, chunks);
    expect(chunks.map((c) => c.text)).toEqual([CATS.join(' '), ROCKETS.join(' ')]);
    expect(chunks.every((c) => c.language === 'en')).toBe(true);
    expect(embedder.calls).toBe(3); // 8 windows ending at each sentence + 1 clamped tail window, in batches of 3
  });

  it('batching and window size do not change the result; windows wider than the text work', async () => {
    const text = [...CATS, ...ROCKETS, ...CATS].join(' ');
    const run = (batchSize: number, windowSentences = 2) =>
      semanticChunk(text, { embedder: new NgramEmbedder(), threshold: 0.4, batchSize, windowSentences });
    const reference = (await run(64)).map((c) => c.text);
    expect(reference).toEqual([CATS.join(' '), ROCKETS.join(' '), CATS.join(' ')]);
    for (const b of [1, 2, 5, 11]) expect((await run(b)).map((c) => c.text)).toEqual(reference);
    const wide = await semanticChunk(CATS.slice(0, 3).join(' '), {
      embedder: new NgramEmbedder(),
      threshold: 0,
      windowSentences: 10,
    });
    expect(wide.map((c) => c.text)).toEqual([CATS.slice(0, 3).join(' ')]);
  });

  it('respects maxTokens, splitting over-long sentences between words', async () => {
    const long = `${'word '.repeat(300).trim()}.`;
    const text = `${CATS[0]} ${long} ${CATS[1]}`;
    const chunks = await semanticChunk(text, { embedder: new NgramEmbedder(), threshold: 0, maxTokens: 50 });
    expectExactOffsets(text, chunks);
    for (const c of chunks) expect(estimateTokens(c.text)).toBeLessThanOrEqual(50);
    expect(chunks.map((c) => c.text).join(' ')).toBe(text);
  });

  it('keeps the page of each chunk and works for Chinese', async () => {
    const text = '伊萨卡的国王是奥德修斯。他的妻子是佩内洛普。\n\n火箭发动机燃烧液氧和煤油。推进剂由涡轮泵输送。';
    const secondPage = text.indexOf('火箭');
    const chunks = await semanticChunk(text, {
      embedder: new NgramEmbedder(),
      threshold: 0.99,
      language: 'zh',
      pages: [
        { page: 1, startOffset: 0 },
        { page: 2, startOffset: secondPage },
      ],
    });
    expectExactOffsets(text, chunks);
    expect(chunks.map((c) => c.text)).toEqual([
      '伊萨卡的国王是奥德修斯。',
      '他的妻子是佩内洛普。',
      '火箭发动机燃烧液氧和煤油。',
      '推进剂由涡轮泵输送。',
    ]);
    expect(chunks.map((c) => c.page)).toEqual([1, 1, 2, 2]);
    expect(chunks[0]!.language).toBe('zh');
  });
});

describe('fixedSizeChunk', () => {
  it('1,000-token windows with 200 overlap, exact offsets, token counts within bounds', () => {
    const text = Array.from({ length: 3000 }, (_, i) => `w${i % 100}`).join(' '); // one token per word
    const chunks = fixedSizeChunk(text);
    expectExactOffsets(text, chunks);
    expect(chunks.length).toBe(Math.ceil((3000 - 200) / 800));
    for (const c of chunks.slice(0, -1)) expect(estimateTokens(c.text)).toBe(1000);
    const first = chunks[0]!.text.split(' ');
    const second = chunks[1]!.text.split(' ');
    expect(second.slice(0, 200)).toEqual(first.slice(-200)); // the overlap
    expect(chunks.at(-1)!.endOffset).toBe(text.length);
  });

  it('uses an injected token counter and pages', () => {
    const text = 'a b c d e f g h i j';
    const chunks = fixedSizeChunk(text, {
      chunkTokens: 4,
      overlapTokens: 1,
      countTokens: () => 1,
      pages: [
        { page: 1, startOffset: 0 },
        { page: 2, startOffset: 8 },
      ],
    });
    expect(chunks.map((c) => c.text)).toEqual(['a b c d', 'd e f g', 'g h i j']);
    expect(chunks.map((c) => c.page)).toEqual([1, 1, 2]);
  });

  it('Thai and Japanese without spaces are cut between characters', () => {
    const text = 'これは日本語の文章です。'.repeat(50);
    const chunks = fixedSizeChunk(text, { chunkTokens: 100, overlapTokens: 10 });
    expectExactOffsets(text, chunks);
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks[0]!.text.length).toBe(100);
  });

  it('rejects an overlap not smaller than the chunk', () => {
    expect(() => fixedSizeChunk('x', { chunkTokens: 10, overlapTokens: 10 })).toThrow(/overlapTokens/);
  });
});

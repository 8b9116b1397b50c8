import { describe, expect, it } from 'vitest';
import { corpusBleu, sentenceBleu } from '../../../src-main/engine/eval/metrics/bleu.js';

// A hypothesis whose every n-gram is in a reference scores the brevity penalty alone:
// 1 when it is longer than the reference length chosen, exp(1 - r/c) otherwise (NLTK, Papineni et al.).
const words = (n: number): string[] => ['w1', 'w2', 'w3', 'w4', 'w5', 'w6', 'w7'].slice(0, n);

describe('BLEU brevity penalty: the reference length closest to the hypothesis', () => {
  it('takes the closest reference length, whichever side of the hypothesis it lies', () => {
    expect(sentenceBleu([words(7), words(6)], words(5))).toBeCloseTo(Math.exp(1 - 6 / 5), 12);
    expect(sentenceBleu([words(2), words(6)], words(5))).toBeCloseTo(Math.exp(1 - 6 / 5), 12);
    expect(sentenceBleu([words(6), words(2)], words(5))).toBeCloseTo(Math.exp(1 - 6 / 5), 12);
  });
  it('takes the shorter of two equally close lengths, in either order', () => {
    expect(sentenceBleu([words(7), words(3)], words(5))).toBe(1);
    expect(sentenceBleu([words(3), words(7)], words(5))).toBe(1);
  });
  it('corpus BLEU sums the chosen reference lengths over the sentences', () => {
    const score = corpusBleu([[words(6)], [words(7)]], [words(5), words(5)]);
    expect(score).toBeCloseTo(Math.exp(1 - 13 / 10), 12);
  });
});

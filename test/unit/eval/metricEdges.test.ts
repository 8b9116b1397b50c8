import { describe, expect, it } from 'vitest';
import { embeddingSimilarity } from '../../../src-main/engine/eval/metrics/embeddingSimilarity.js';
import { exactMatch } from '../../../src-main/engine/eval/metrics/exactMatch.js';
import { retrievalRecall } from '../../../src-main/engine/eval/metrics/retrievalRecall.js';
import { rouge } from '../../../src-main/engine/eval/metrics/rouge.js';
import { softExactMatch } from '../../../src-main/engine/eval/metrics/softExactMatch.js';
import { prf, tokenF1 } from '../../../src-main/engine/eval/metrics/tokenF1.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';

// Edges named in test/mutation/survivors.md (mutants the second mutation run left alive).
describe('metric edges', () => {
  it('language-aware EM scores a wrong answer 0, in spaced and in segmented scripts', () => {
    expect(exactMatch('Roma', ['Milano'], { language: 'it' })).toBe(0);
    expect(exactMatch('上海', ['北京'], { language: 'zh' })).toBe(0);
    expect(exactMatch('new york', ['newyork'], { language: 'en' })).toBe(0);
    expect(exactMatch('北 京', ['北京'], { language: 'zh' })).toBe(1);
  });
  it('similarity against no references is 0, not -Infinity', async () => {
    expect(await embeddingSimilarity(new NgramEmbedder(), 'Penelope', [])).toBe(0);
  });
  it('recall is not defined without supporting passages', () => {
    expect(retrievalRecall(['p1'], [], 2)).toBeUndefined();
  });
  it('ROUGE keeps the best reference, not the last', () => {
    expect(rouge('penelope', ['penelope', 'telemachus'], 'en').rouge1.f1).toBe(1);
  });
  it('no overlap is exactly 0', () => {
    expect(prf(0, 3, 4)).toEqual({ precision: 0, recall: 0, f1: 0 });
    expect(tokenF1('Rome', ['Milan']).f1).toBe(0);
  });
  it('Soft EM finds a name glued to a possessive (punctuation as a boundary)', () => {
    expect(softExactMatch("It was Odysseus's bow.", ['Odysseus'], 'en')).toBe(1);
  });
  it('HotpotQA: a yes/no answer with more words than the gold scores F1 0', () => {
    expect(tokenF1('yes it is', ['yes'], { script: 'hotpotqa' }).f1).toBe(0);
    expect(tokenF1('noanswer here', ['noanswer'], { script: 'hotpotqa' }).f1).toBe(0);
    expect(tokenF1('yes it is', ['yes']).f1).toBeCloseTo(0.5, 12);
  });
});

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PromptLibrary } from '../../../src-main/engine/models/PromptLibrary.js';
import { bleu, corpusBleu, sentenceBleu } from '../../../src-main/engine/eval/metrics/bleu.js';
import { embeddingSimilarity } from '../../../src-main/engine/eval/metrics/embeddingSimilarity.js';
import { exactMatch } from '../../../src-main/engine/eval/metrics/exactMatch.js';
import { llmJudge } from '../../../src-main/engine/eval/metrics/llmJudge.js';
import {
  answerTokens,
  normaliseAnswer,
  squadNormalise,
  textTokens,
} from '../../../src-main/engine/eval/metrics/normalise.js';
import { retrievalRecall } from '../../../src-main/engine/eval/metrics/retrievalRecall.js';
import { rouge, rougeL, rougeN } from '../../../src-main/engine/eval/metrics/rouge.js';
import { softExactMatch } from '../../../src-main/engine/eval/metrics/softExactMatch.js';
import { tokenF1 } from '../../../src-main/engine/eval/metrics/tokenF1.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';

const prompts = new PromptLibrary(join(import.meta.dirname, '../../../prompts'));
const words = (s: string): string[] => s.split(' ');

describe('SQuAD normalisation (normalize_answer of the official v1.1 script)', () => {
  it.each([
    ['The Cat in the Hat!', 'cat in hat'],
    ['  An   apple, a day. ', 'apple day'],
    ['U.S.A.', 'usa'],
    ['theatre and anthem', 'theatre and anthem'], // articles only as whole words
    ["Rock 'n' Roll", 'rock n roll'],
    ['Thé', 'thé'], // non-ASCII letters stay; only string.punctuation goes
    ['the—the', '—'], // an em dash is not ASCII punctuation, and keeps "the" apart as a word
  ])('%j → %j', (input, expected) => {
    expect(squadNormalise(input)).toBe(expected);
  });
});

describe('exact match and token F1', () => {
  it('EM is 1 when any gold alias matches after normalisation', () => {
    expect(exactMatch('the Eiffel Tower.', ['Eiffel Tower'])).toBe(1);
    expect(exactMatch('Eiffel', ['Eiffel Tower', 'Tour Eiffel'])).toBe(0);
    expect(exactMatch('tour eiffel', ['Eiffel Tower', 'Tour Eiffel'])).toBe(1);
  });

  it('F1 is the bag-of-tokens overlap (by hand: 3 shared of 4 predicted and 3 gold tokens)', () => {
    const s = tokenF1('the cat sat on the mat', ['a cat on a mat']);
    expect(s.precision).toBeCloseTo(3 / 4, 12);
    expect(s.recall).toBeCloseTo(1, 12);
    expect(s.f1).toBeCloseTo(6 / 7, 12);
  });

  it('F1 clips repeated tokens and takes the best alias', () => {
    expect(tokenF1('paris paris', ['Paris']).f1).toBeCloseTo(2 / 3, 12);
    expect(tokenF1('New York City', ['NYC', 'New York']).f1).toBeCloseTo(0.8, 12);
    expect(tokenF1('nothing shared', ['Rome']).f1).toBe(0);
    expect(tokenF1('', ['Rome']).f1).toBe(0);
  });

  it("the language-aware variant strips the language's own articles, elided ones included", () => {
    expect(exactMatch("l'Università di Bologna", ['Università di Bologna'])).toBe(0);
    expect(exactMatch("l'Università di Bologna", ['Università di Bologna'], { language: 'it' })).toBe(1);
    expect(exactMatch('Der Rhein', ['Rhein'], { language: 'de' })).toBe(1);
    expect(exactMatch('Der Rhein', ['Rhein'])).toBe(0);
    expect(exactMatch('la Seine', ['Seine'], { language: 'fr' })).toBe(1);
    expect(exactMatch('Los Andes', ['Andes'], { language: 'es' })).toBe(1);
    expect(normaliseAnswer('The Beatles', 'it')).toBe('the beatles'); // English articles are words in Italian
  });

  it('tokenises Chinese and Thai with Intl.Segmenter, where whitespace tokenisation sees one token', () => {
    expect(answerTokens('北京是中国的首都。', 'zh')).toEqual(['北京', '是', '中国', '的', '首都']);
    expect(tokenF1('北京是中国的首都', ['北京'], { language: 'zh' }).f1).toBeCloseTo(1 / 3, 12); // P 1/5, R 1
    expect(tokenF1('北京是中国的首都', ['北京']).f1).toBe(0);
    expect(exactMatch('北京。', ['北京'], { language: 'zh' })).toBe(1);
    expect(textTokens('กรุงเทพมหานครเป็นเมืองหลวง', 'th').length).toBeGreaterThan(1);
  });
});

describe('Soft EM (MDER-DR)', () => {
  it('is 1 when the normalised expected answer appears in the response', () => {
    expect(softExactMatch('The league is Major League Soccer.', ['major league soccer'], 'en')).toBe(1);
    expect(softExactMatch('It is the NFL.', ['Major League Soccer'], 'en')).toBe(0);
    expect(softExactMatch('È stata Penelope, la moglie di Ulisse.', ['la Penelope'], 'it')).toBe(1);
  });

  it('matches whole words, normalises Unicode (NFKC) and handles unsegmented scripts', () => {
    expect(softExactMatch('born in 1990', ['1'], 'en')).toBe(0);
    expect(softExactMatch('the party', ['art'], 'en')).toBe(0);
    expect(softExactMatch('ＰＥＮＥＬＯＰＥ', ['Penelope'], 'en')).toBe(1); // full-width forms
    expect(softExactMatch('Cafe\u0301 de Flore', ['Café de Flore'], 'fr')).toBe(1); // combining accent
    expect(softExactMatch('答案是北京。', ['北京'], 'zh')).toBe(1);
    expect(softExactMatch('anything', ['The'], 'en')).toBe(0); // nothing left to look for
  });
});

describe('ROUGE (textbook examples)', () => {
  const ref = words('the cat was under the bed');
  const cand = words('the cat was found under the bed');

  it('ROUGE-1 and ROUGE-2 precision / recall', () => {
    expect(rougeN(cand, ref, 1)).toMatchObject({ precision: 6 / 7, recall: 1 });
    const r2 = rougeN(cand, ref, 2);
    expect(r2.precision).toBeCloseTo(4 / 6, 12);
    expect(r2.recall).toBeCloseTo(4 / 5, 12);
    expect(r2.f1).toBeCloseTo((2 * (4 / 6) * (4 / 5)) / (4 / 6 + 4 / 5), 12);
  });

  it('ROUGE-L by longest common subsequence (Lin 2004: police / gunman)', () => {
    const r1 = words('police killed the gunman');
    expect(rougeL(words('police kill the gunman'), r1).recall).toBeCloseTo(3 / 4, 12);
    expect(rougeL(words('the gunman kill police'), r1).recall).toBeCloseTo(2 / 4, 12);
    expect(rougeL(cand, ref)).toMatchObject({ precision: 6 / 7, recall: 1 });
  });

  it('scores text against the best reference', () => {
    const s = rouge('The cat was found under the bed.', ['a dog', 'The cat was under the bed'], 'en');
    expect(s.rouge1.recall).toBe(1);
    expect(s.rouge2.recall).toBeCloseTo(4 / 5, 12);
  });
});

describe('BLEU (NLTK semantics)', () => {
  // The hypothesis and references of NLTK's `sentence_bleu` / `corpus_bleu` documentation.
  const hyp1 = [
    'It',
    'is',
    'a',
    'guide',
    'to',
    'action',
    'which',
    'ensures',
    'that',
    'the',
    'military',
    'always',
    'obeys',
    'the',
    'commands',
    'of',
    'the',
    'party',
  ];
  const ref1a = [
    'It',
    'is',
    'a',
    'guide',
    'to',
    'action',
    'that',
    'ensures',
    'that',
    'the',
    'military',
    'will',
    'forever',
    'heed',
    'Party',
    'commands',
  ];
  const ref1b = [
    'It',
    'is',
    'the',
    'guiding',
    'principle',
    'which',
    'guarantees',
    'the',
    'military',
    'forces',
    'always',
    'being',
    'under',
    'the',
    'command',
    'of',
    'the',
    'Party',
  ];
  const ref1c = [
    'It',
    'is',
    'the',
    'practical',
    'guide',
    'for',
    'the',
    'army',
    'always',
    'to',
    'heed',
    'the',
    'directions',
    'of',
    'the',
    'party',
  ];
  const hyp2 = ['he', 'read', 'the', 'book', 'because', 'he', 'was', 'interested', 'in', 'world', 'history'];
  const ref2a = ['he', 'was', 'interested', 'in', 'world', 'history', 'because', 'he', 'read', 'the', 'book'];

  it('reproduces the sentence_bleu documentation value 0.5045…', () => {
    expect(sentenceBleu([ref1a, ref1b, ref1c], hyp1)).toBeCloseTo(0.5045666840058485, 10);
  });

  it('reproduces the corpus_bleu documentation value 0.5920…', () => {
    expect(corpusBleu([[ref1a, ref1b, ref1c], [ref2a]], [hyp1, hyp2])).toBeCloseTo(0.5920778868801042, 10);
  });

  it('clips counts (Papineni et al.: "the the the …" has unigram precision 2/7)', () => {
    const hyp = words('the the the the the the the');
    expect(
      sentenceBleu([words('the cat is on the mat'), words('there is a cat on the mat')], hyp, { maxOrder: 1 }),
    ).toBeCloseTo(2 / 7, 12);
  });

  it('smooths missing orders with epsilon 0.1 (NLTK method1) so a one-word exact answer is not 0', () => {
    expect(bleu('Rome', ['Rome'], 'en')).toBeCloseTo(0.1 ** 0.75, 12);
    expect(bleu('Rome', ['Rome'], 'en', { smoothing: 'none' })).toBe(0);
    expect(bleu('Paris', ['Rome'], 'en')).toBe(0);
  });
});

describe('retrieval recall@k', () => {
  it('counts supporting passages among the first k distinct cited passages', () => {
    expect(retrievalRecall(['a', 'b', 'c', 'd'], ['c', 'x'], 2)).toBe(0);
    expect(retrievalRecall(['a', 'b', 'c', 'd'], ['c', 'x'], 5)).toBe(0.5);
    expect(retrievalRecall(['x', 'c'], ['c', 'x'], 2)).toBe(1);
    expect(retrievalRecall(['a'], undefined, 2)).toBeUndefined();
  });
});

describe('embedding similarity and LLM-as-judge', () => {
  it('takes the best cosine over the references', async () => {
    const e = new NgramEmbedder();
    expect(await embeddingSimilarity(e, 'Penelope', ['Telemachus', 'Penelope'])).toBeCloseTo(1, 6);
    expect(await embeddingSimilarity(e, 'Penelope', ['Telemachus'])).toBeLessThan(0.5);
  });

  it("turns the 0–4 grade into a score and tells the judge the question's language", async () => {
    const llm = new ScriptedLlm([
      {
        prompt: 'eval/judge',
        reply: (v) => ({ reason: 'right person', grade: v.response?.includes('Penelope') ? 3 : 0 }),
      },
    ]);
    const verdict = await llmJudge(
      llm,
      prompts,
      {
        question: 'Chi era la moglie di Ulisse?',
        expected: ['Penelope', 'Penelopea'],
        response: 'Penelope',
        language: 'it',
      },
      undefined,
    );
    expect(verdict).toMatchObject({ score: 0.75, grade: 3, reason: 'right person' });
    const call = llm.callsOf('eval/judge')[0];
    expect(call?.prompt.variables).toMatchObject({ language: 'Italian', expected: 'Penelope', aliases: 'Penelopea' });
    expect(call?.prompt.user).toContain('<response>\nPenelope\n</response>');
  });

  it('rejects a grade outside the rubric', async () => {
    const llm = new ScriptedLlm([{ prompt: 'eval/judge', reply: () => ({ reason: 'x', grade: 7 }) }]);
    await expect(
      llmJudge(llm, prompts, { question: 'q', expected: ['a'], response: 'a', language: 'en' }),
    ).rejects.toMatchObject({ code: 'LLM_OUTPUT_INVALID' });
  });
});

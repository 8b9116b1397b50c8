import { describe, expect, it } from 'vitest';
import {
  answerTokens,
  normaliseAnswer,
  squadNormalise,
  stripCitations,
  textTokens,
  usesWordSegmenter,
} from '../../../src-main/engine/eval/metrics/normalise.js';

// Each article and elided form, one per case: dropping any one word from the tables (or the
// table) leaves it in the normalised answer.
const ARTICLES: Record<string, string[]> = {
  en: ['a', 'an', 'the'],
  it: ['il', 'lo', 'la', 'i', 'gli', 'le', 'un', 'uno', 'una'],
  fr: ['le', 'la', 'les', 'un', 'une', 'des'],
  es: ['el', 'la', 'lo', 'los', 'las', 'un', 'una', 'unos', 'unas'],
  pt: ['o', 'a', 'os', 'as', 'um', 'uma', 'uns', 'umas'],
  ca: ['el', 'la', 'els', 'les', 'un', 'una'],
  de: ['der', 'die', 'das', 'den', 'dem', 'des', 'ein', 'eine', 'einen', 'einem', 'einer', 'eines'],
  nl: ['de', 'het', 'een'],
};
const ELIDED: Record<string, string[]> = { it: ['l', 'un', 'dell', 'all', 'nell', 'sull'], fr: ['l'], ca: ['l'] };

describe('normaliseAnswer drops the articles of the answer language', () => {
  for (const [language, words] of Object.entries(ARTICLES))
    for (const word of words)
      it(`${language}: "${word}"`, () => {
        expect(normaliseAnswer(`${word} Casa ${word}`, language)).toBe('casa');
        // …as whole words only.
        expect(normaliseAnswer(`${word}x`, language)).toBe(`${word}x`);
      });
  it('keeps the articles of other languages', () => {
    expect(normaliseAnswer('der Hund', 'en')).toBe('der hund');
    expect(normaliseAnswer('the dog', 'de')).toBe('the dog');
    expect(normaliseAnswer('the dog', 'sw')).toBe('the dog');
  });
  it('reads the primary subtag of a language tag', () => {
    expect(normaliseAnswer('Il Cane', 'it-IT')).toBe('cane');
    expect(normaliseAnswer('Il Cane', 'IT_ch')).toBe('cane');
  });
});

describe('normaliseAnswer splits elided articles off', () => {
  for (const [language, forms] of Object.entries(ELIDED))
    for (const form of forms)
      it(`${language}: "${form}'"`, () => {
        expect(normaliseAnswer(`${form}'isola`, language)).toBe('isola');
        expect(normaliseAnswer(`${form}’isola`, language)).toBe('isola');
      });
  it('only in the languages that elide', () => {
    expect(normaliseAnswer("l'isola", 'en')).toBe('lisola');
  });
});

describe('punctuation, invisible characters and whitespace', () => {
  it('deletes punctuation by default and spaces it on request', () => {
    expect(normaliseAnswer('U.S.', 'en')).toBe('us');
    expect(normaliseAnswer("Odysseus's", 'en', { punctuation: 'space' })).toBe('odysseus s');
    expect(normaliseAnswer("Odysseus's", 'en', { punctuation: 'delete' })).toBe('odysseuss');
  });
  it('removes soft hyphens inside a word and turns separators into spaces', () => {
    expect(normaliseAnswer('Pene\u00adlope', 'en')).toBe('penelope');
    expect(normaliseAnswer('Penelope\u00b9', 'en')).toBe('penelope');
    expect(normaliseAnswer('a\u200bb', 'sw')).toBe('a b');
  });
  it('collapses every kind of whitespace, Python separators included', () => {
    expect(normaliseAnswer('x \t\u001c\u0085 y', 'sw')).toBe('x y');
    expect(textTokens('x \u001c\u0085 y', 'en')).toEqual(['x', 'y']);
    expect(answerTokens('  ', 'en')).toEqual([]);
    expect(answerTokens('The Big  Dog', 'en')).toEqual(['big', 'dog']);
  });
  it('squadNormalise replaces an article with a space: letters JS does not count as word characters stay apart', () => {
    expect(squadNormalise('étheé')).toBe('étheé'); // Unicode-aware edges: no article inside a word
    expect(squadNormalise('é the é')).toBe('é é');
    expect(squadNormalise('The U.S. Army')).toBe('us army');
  });
});

describe('word segmentation', () => {
  it('names the scripts written without spaces, by primary subtag', () => {
    for (const language of ['zh', 'ja', 'th', 'lo', 'km', 'my', 'zh-Hant', 'ja_JP'])
      expect(usesWordSegmenter(language)).toBe(true);
    for (const language of ['en', 'it', 'ko', 'vi']) expect(usesWordSegmenter(language)).toBe(false);
  });
  it('segments Chinese into words for both normalisers', () => {
    expect(textTokens('我喜欢北京', 'zh').length).toBeGreaterThan(1);
    expect(normaliseAnswer('我喜欢北京。', 'zh').split(' ').length).toBeGreaterThan(1);
  });
});

describe('stripCitations', () => {
  it('removes each citation form the answer prompts ask for, and nothing else', () => {
    expect(stripCitations('Rome [1].')).toBe('Rome  .');
    expect(stripCitations('Rome [12][3]')).toBe('Rome   ');
    expect(stripCitations('Rome [1, 23]')).toBe('Rome  ');
    expect(stripCitations('Rome [1 ;23]')).toBe('Rome  ');
    expect(stripCitations('Rome [1,  2]')).toBe('Rome  ');
    expect(stripCitations('Rome [1 , 2]')).toBe('Rome  ');
    expect(stripCitations('Rome [a] [1 2] [1,x] [1:2]')).toBe('Rome [a] [1 2] [1,x] [1:2]');
  });
});

import { describe, expect, it } from 'vitest';
import { detectLanguage, estimateTokens, splitSentences, splitWords } from '../../../src-main/engine/ingest/index.js';

const sentences = (text: string, locale?: string) =>
  splitSentences(text, locale).map((s) => text.slice(s.start, s.end));

describe('segmentation and language', () => {
  it('sentences in Chinese, Japanese and Thai (no spaces between words)', () => {
    expect(sentences('我爱北京天安门。今天天气很好！你呢？好的', 'zh')).toEqual([
      '我爱北京天安门。',
      '今天天气很好！',
      '你呢？',
      '好的',
    ]);
    expect(sentences('これは日本語の文章です。二番目の文です！三番目', 'ja')).toEqual([
      'これは日本語の文章です。',
      '二番目の文です！',
      '三番目',
    ]);
    expect(sentences('วันนี้อากาศดีมาก ฉันจะไปตลาด พรุ่งนี้ฝนจะตก', 'th')).toEqual(['วันนี้อากาศดีมาก', 'ฉันจะไปตลาด', 'พรุ่งนี้ฝนจะตก']);
  });

  it('sentences in English: trimmed spans, a line break ends a sentence', () => {
    expect(sentences('  First one here.  Second one!\nA heading\n\nLast bit', 'en')).toEqual([
      'First one here.',
      'Second one!',
      'A heading',
      'Last bit',
    ]);
  });

  it('long texts are segmented in windows without losing or reordering text', () => {
    const text = Array.from({ length: 5000 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
    const spans = splitSentences(text, 'en');
    expect(spans).toHaveLength(5000);
    expect(text.slice(spans[4321]!.start, spans[4321]!.end)).toBe('Sentence number 4321 is here.');
    for (let i = 1; i < spans.length; i++) expect(spans[i]!.start).toBeGreaterThanOrEqual(spans[i - 1]!.end);
  });

  it('words in zh, ja, th by dictionary segmentation', () => {
    expect(splitWords('วันนี้อากาศดีมาก', 'th').map((w) => w.word)).toEqual(['วัน', 'นี้', 'อากาศ', 'ดี', 'มาก']);
    expect(splitWords('これは日本語の文章です', 'ja').map((w) => w.word)).toEqual([
      'これ',
      'は',
      '日本語',
      'の',
      '文章',
      'です',
    ]);
    const zh = splitWords('我爱北京天安门', 'zh').map((w) => w.word);
    expect(zh.join('')).toBe('我爱北京天安门');
    expect(zh.length).toBeGreaterThan(1);
    expect(splitWords('Hello, world!', 'en').map((w) => w.word)).toEqual(['Hello', 'world']);
  });

  it('language per text with tinyld; und when too short', () => {
    expect(detectLanguage('The king of Ithaca returned home after twenty years of war.')).toBe('en');
    expect(detectLanguage('Il re di Itaca tornò a casa dopo vent’anni di guerra.')).toBe('it');
    expect(detectLanguage('伊萨卡国王在战争二十年后回到了家乡。')).toBe('zh');
    expect(detectLanguage('イタカの王は二十年の戦争の後に帰国した。')).toBe('ja');
    expect(detectLanguage('กษัตริย์แห่งอิธากากลับบ้านหลังสงคราม')).toBe('th');
    expect(detectLanguage('ok')).toBe('und');
    expect(detectLanguage('12345 67890 !!!')).toBe('und');
  });

  it('token estimate: words by length, CJK by character, punctuation 1', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('Hello, world!')).toBe(6);
    expect(estimateTokens('我爱北京')).toBe(4);
    expect(estimateTokens('internationalization')).toBe(5);
  });
});

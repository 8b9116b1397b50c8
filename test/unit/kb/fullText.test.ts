import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KnowledgeBase } from '../../../src-main/engine/kb/KnowledgeBase.js';
import { addDoc, createKb, tempDir } from './kbFixtures.js';

describe('KnowledgeBase full text (FTS5 bm25)', () => {
  let cleanup: () => void;
  let kb: KnowledgeBase;
  let ids: Record<string, number>;
  const texts: Record<string, string> = {
    en1: 'Odysseus was the king of Ithaca and the husband of Penelope.',
    en2: 'Ithaca is a Greek island in the Ionian Sea.',
    en3: 'The Trojan War lasted ten years.',
    zh1: '北京大学是中国最著名的大学之一。',
    zh2: '上海是中国最大的城市。',
    th1: 'กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทย',
    th2: 'ภาษาไทยมีพยัญชนะสี่สิบสี่ตัว',
    ja1: '東京は日本の首都です。',
  };
  beforeEach(() => {
    let dir: string;
    ({ dir, cleanup } = tempDir());
    kb = createKb(dir);
    const keys = Object.keys(texts);
    const chunkIds = addDoc(kb, '/multi', ...keys.map((k) => texts[k]!)).chunkIds;
    ids = Object.fromEntries(keys.map((k, i) => [k, chunkIds[i]!]));
    kb.textIndex.indexText(
      'chunk',
      keys.map((k) => ({ id: ids[k]!, text: texts[k]! })),
    );
  });
  afterEach(() => {
    kb.close();
    cleanup();
  });

  const top = (query: string, k = 10): number[] => kb.textIndex.bm25('chunk', query, k).map((r) => r.id);

  it('ranks English text by bm25, higher score first', () => {
    const results = kb.textIndex.bm25('chunk', 'Who was the king of Ithaca?', 10);
    expect(results[0]?.id).toBe(ids.en1);
    expect(results.map((r) => r.id)).toContain(ids.en2);
    expect(results.map((r) => r.id)).not.toContain(ids.zh1);
    for (let i = 1; i < results.length; i++) expect(results[i - 1]!.score).toBeGreaterThanOrEqual(results[i]!.score);
    expect(top('ITHACA ionian')[0]).toBe(ids.en2);
  });

  it('finds words inside unspaced Chinese, Thai and Japanese text', () => {
    expect(top('大学')).toEqual([ids.zh1]);
    expect(top('中国的城市')[0]).toBe(ids.zh2);
    expect(top('เมืองหลวง')).toEqual([ids.th1]);
    expect(top('ภาษาไทย')).toEqual([ids.th2]);
    expect(top('日本の首都')).toEqual([ids.ja1]);
  });

  it('treats FTS5 syntax in a question as plain words', () => {
    for (const hostile of [
      'king" OR "x',
      'text:king',
      'NEAR(king ithaca, 1)',
      '(king',
      'king*',
      '"unterminated',
      '^king AND NOT ithaca',
      "'; DROP TABLE chunks; --",
      '{text}: king',
      '\u0000king',
    ]) {
      expect(() => top(hostile), hostile).not.toThrow();
    }
    expect(top('king" OR "x')[0]).toBe(ids.en1);
    expect(top('NOT ithaca')).toContain(ids.en1); // NOT is a word here, not an operator
    expect(top("'; DROP TABLE chunks; --")).toEqual([]);
    expect(kb.stats().chunks).toBe(8);
    expect(top('...?!')).toEqual([]);
  });

  it('replaces and removes indexed text', () => {
    kb.textIndex.indexText('chunk', [{ id: ids.en3!, text: 'Ithaca again' }]);
    expect(top('Trojan')).toEqual([]);
    expect(top('ithaca')).toContain(ids.en3);
    kb.textIndex.removeText('chunk', [ids.en3!, ids.en2!]);
    expect(top('ithaca')).toEqual([ids.en1]);
    expect(kb.textIndex.missingText('chunk').sort()).toEqual([ids.en2, ids.en3].sort());
    expect(() => kb.textIndex.indexText('triple', [{ id: 999, text: 'x' }])).toThrow(/No triple 999/);
  });

  it('leaves out words common in a large index, finding nothing when only they are left', () => {
    // 12,000 rows: "common" in all, "often" in 20%, "group0"…"group9" in 10% each, "seldom" in 3, "alone" nowhere.
    const doc = kb.documents.addDocument({ path: '/large', title: 'large', hash: 'h', mime: 'text/plain', size: 1 });
    const rows = Array.from(
      { length: 12_000 },
      (_, i) => `common ${i % 5 === 0 ? 'often' : 'filler'} ${i < 3 ? 'seldom' : 'word'} row${i} group${i % 10}`,
    );
    const large = kb.documents.replaceChunks(
      doc.id,
      rows.map((text, ord) => ({ ord, text, language: 'en', startOffset: 0, endOffset: text.length, page: null })),
    );
    kb.textIndex.indexText(
      'chunk',
      large.map((c) => ({ id: c.id, text: c.text })),
    );
    const seldom = large.slice(0, 3).map((c) => c.id);

    expect(
      kb.textIndex
        .bm25('chunk', 'COMMON often seldom', 20)
        .map((r) => r.id)
        .sort(),
    ).toEqual(seldom.sort());
    expect(kb.textIndex.bm25('chunk', 'common often', 20)).toEqual([]); // all common: dense retrieval ranks such queries
    expect(kb.textIndex.bm25('chunk', 'common alone', 20)).toEqual([]); // an absent word cannot stand in
    expect(kb.textIndex.bm25('chunk', 'often', 5)).toEqual([]);
    // `exact` (the benchmarks' ground truth) scores every word, the common ones too.
    expect(kb.textIndex.bm25('chunk', 'often', 5, { exact: true })).toHaveLength(5);
    expect(kb.textIndex.bm25('chunk', 'common alone', 3, { exact: true })).toHaveLength(3);
    expect(kb.textIndex.bm25('chunk', 'ROW7', 5).map((r) => r.id)).toEqual([large[7]!.id]);
    // A word the tokenizer splits counts by its parts: "row5" is rare, "s" absent.
    expect(kb.textIndex.bm25('chunk', "common row5's", 20).map((r) => r.id)).toEqual([large[5]!.id]);
    // Words that pass no share limit alone but would together make FTS5 score more than 10,000 rows: the first 8 are kept.
    const groups = Array.from({ length: 9 }, (_, g) => `group${g}`).join(' ');
    expect(kb.textIndex.bm25('chunk', groups, 12_000)).toHaveLength(8 * 1_200);
    expect(kb.textIndex.bm25('chunk', 'group1 group2', 12_000)).toHaveLength(2 * 1_200);
    // Without "seldom" rows the word is absent, so nothing is left to search.
    kb.textIndex.removeText('chunk', seldom);
    expect(kb.textIndex.bm25('chunk', 'common seldom', 20)).toEqual([]);
    // Row counts of words are kept between questions, and renewed when the index changes: a rare
    // word that becomes common is left out from then on.
    expect(kb.textIndex.bm25('chunk', 'row42 row43', 5)).toHaveLength(2);
    kb.textIndex.indexText(
      'chunk',
      large.slice(100, 1_500).map((c) => ({ id: c.id, text: `${c.text} row42` })),
    );
    expect(kb.textIndex.bm25('chunk', 'row42 row43', 5).map((r) => r.id)).toEqual([large[43]!.id]);
  });
});

import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { isEnglish, sqlNotEnglish } from '../../../src-main/engine/base/englishLanguage.js';

describe('isEnglish and its SQL twin', () => {
  it('agree on every kind of language code', () => {
    const db = new Database(':memory:');
    const codes = [null, '', 'en', 'en-GB', 'en-us', 'und', 'it', 'fr', 'es', 'de', 'zh', 'eng', 'enm', 'pt-BR'];
    const notEnglish = db.prepare(`SELECT ${sqlNotEnglish('c')} FROM (SELECT ? AS c)`).pluck();
    expect(codes.map((c) => notEnglish.get(c) === 1)).toEqual(codes.map((c) => !isEnglish(c)));
    db.close();
  });
});

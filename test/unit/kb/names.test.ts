import { describe, expect, it } from 'vitest';
import { entityKey } from '../../../src-main/engine/kb/entityKey.js';
import { verbaliseTriple } from '../../../src-main/engine/kb/verbaliseTriple.js';
import { checkBaseIri } from '../../../src-main/engine/kb/utils/baseIri.js';
import { ftsQuery, indexTerm, queryTerms, segmentWords } from '../../../src-main/engine/kb/utils/ftsText.js';

describe('kb naming helpers', () => {
  it('entityKey folds width, case and whitespace only', () => {
    expect(entityKey('  Ｐenelope\u00a0 OF\tIthaca ')).toBe('penelope of ithaca');
    expect(entityKey('Straße')).toBe(entityKey('STRASSE'));
    expect(entityKey('ΟΔΥΣΣΕΥΣ')).toBe(entityKey('οδυσσευς'));
    expect(entityKey('Penelope')).not.toBe(entityKey('Penelopé'));
    expect(entityKey(' \n ')).toBe('');
  });

  it('verbaliseTriple de-underscores and lower-cases the relation only', () => {
    expect(verbaliseTriple('Odysseus', 'KING_OF', 'Ithaca')).toBe('Odysseus king of Ithaca');
    expect(verbaliseTriple('Penelope', 'wife__of ', 'Odysseus')).toBe('Penelope wife of Odysseus');
  });

  it('checkBaseIri accepts http(s)/urn IRIs ending in / or # and explains refusals', () => {
    for (const ok of ['urn:polyhop:kb:abc-123/', 'https://example.org/kb/', 'http://example.org#'])
      expect(checkBaseIri(ok)).toBe(ok);
    for (const bad of [
      'urn:polyhop:kb:abc',
      'ftp://x/',
      'https://exa mple.org/',
      'https://x.org/<a>/',
      'relative/',
      '',
    ]) {
      expect(() => checkBaseIri(bad)).toThrow(/Base IRI/);
    }
  });

  it('segments languages without spaces into words', () => {
    expect(segmentWords('北京大学是中国的一所大学')).toContain('大学');
    expect(segmentWords('ภาษาไทยเป็นภาษาที่ยาก')).toContain('ภาษา');
    expect(segmentWords('東京は日本の首都です')).toContain('首都');
  });

  it('ftsQuery quotes every word so FTS5 syntax is inert', () => {
    expect(ftsQuery('capital OR "x" NEAR(a b) col:y*')).toBe(
      '"capital" OR "or" OR "x" OR "near" OR "a" OR "b" OR "col:y"',
    );
    expect(ftsQuery('?!* ()')).toBeNull();
    expect(ftsQuery('Ab ab AB')).toBe('"ab"');
    expect(ftsQuery('pen', { prefix: true })).toBe('"pen"*');
  });

  it('queryTerms keeps distinct words in order; indexTerm folds them as the FTS5 tokenizer does', () => {
    expect(queryTerms('Ithaca king ITHACA Pénélope')).toEqual(['ithaca', 'king', 'pénélope']);
    expect(queryTerms(Array.from({ length: 100 }, (_, i) => `w${i}`).join(' '))).toHaveLength(64);
    expect(indexTerm('Pénélope')).toBe('penelope');
    expect(indexTerm('ÉPOUSE')).toBe('epouse');
  });
});

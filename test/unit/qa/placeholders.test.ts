import { describe, expect, it } from 'vitest';
import {
  cleanDecomposition,
  cleanResolvedValue,
  nextResolution,
  openPlaceholders,
  placeholderName,
  propagate,
} from '../../../src-main/engine/qa/dr/placeholders.js';

// The edges of reading a DR decomposition, where one wrong reading sends retrieval after the wrong
// term (written against the mutants that survived `npm run mutation -- qa/dr/placeholders.ts`
// with logic.test.ts alone: test/mutation/survivors.md).

describe('placeholderName: what is an unknown, and what is a name', () => {
  it('reads every bracket kind with any name inside, spaces trimmed, digits allowed', () => {
    expect(['<wife>', '{spouse}', '[wife]', '[ X ]', '[x2]', '?X1', '?wife_of'].map(placeholderName)).toEqual([
      'WIFE',
      'SPOUSE',
      'WIFE',
      'X',
      'X2',
      'X1',
      'WIFE_OF',
    ]);
  });

  it('takes a term that only contains a placeholder-like part as a name', () => {
    // Brackets, "?" and "unknown" count only as the whole term: these are names (or phrases).
    expect(
      ['King of [Ithaca]', 'The Unknown', 'Ithaca?X', '?wife of Odysseus', '[the wife]', '?X?'].map(placeholderName),
    ).toEqual([null, null, null, null, null, null]);
  });
});

describe('propagate, nextResolution and openPlaceholders', () => {
  it('propagating a name that is no placeholder changes nothing', () => {
    const triples = [{ subject: 'Ithaca', relation: 'HAS_KING', object: '?X' }];
    expect(propagate(triples, 'Odysseus', 'Penelope')).toEqual(triples);
  });

  it('anchors and names the placeholder without the spaces a model left around them', () => {
    expect(nextResolution([{ subject: ' Ithaca ', relation: 'HAS_KING', object: ' ?X ' }])).toEqual({
      index: 0,
      anchor: 'Ithaca',
      placeholder: '?X',
    });
    expect(nextResolution([{ subject: ' ?X ', relation: 'KING_OF', object: ' Ithaca ' }])).toEqual({
      index: 0,
      anchor: 'Ithaca',
      placeholder: '?X',
    });
    expect(openPlaceholders([{ subject: ' ?X ', relation: 'R', object: 'Ithaca' }])).toEqual(['?X']);
  });
});

describe('cleanDecomposition', () => {
  it('names anonymous unknowns X, Y, Z, W, V, U, T, S, then P1, P2…', () => {
    const anonymous = Array.from({ length: 10 }, (_, i) => ({ subject: `E${i}`, relation: 'R', object: '?' }));
    expect(cleanDecomposition(anonymous).map((t) => t.object)).toEqual([
      '?X',
      '?Y',
      '?Z',
      '?W',
      '?V',
      '?U',
      '?T',
      '?S',
      '?P1',
      '?P2',
    ]);
  });

  it('a lone "?" as the first subject is a new unknown, not the chain of one before it', () => {
    expect(cleanDecomposition([{ subject: '?', relation: 'KING_OF', object: 'Ithaca' }])).toEqual([
      { subject: '?X', relation: 'KING_OF', object: 'Ithaca' },
    ]);
  });

  it('trims names and relations, and drops a triple whose relation or object is only spaces', () => {
    expect(
      cleanDecomposition([
        { subject: ' Ithaca ', relation: ' HAS_KING ', object: '?X' },
        { subject: 'Sparta', relation: '  ', object: '?Y' },
        { subject: 'Pylos', relation: 'HAS_KING', object: '  ' },
      ]),
    ).toEqual([{ subject: 'Ithaca', relation: 'HAS_KING', object: '?X' }]);
  });
});

describe('cleanResolvedValue', () => {
  it('drops every quote around a value, and keeps values that only end or start like "none"', () => {
    expect(cleanResolvedValue('«"Penelope"»')).toBe('Penelope');
    expect(['The Unknown', 'Nonesuch Palace', 'Lady None'].map(cleanResolvedValue)).toEqual([
      'The Unknown',
      'Nonesuch Palace',
      'Lady None',
    ]);
    expect(['---', '-', 'not found', 'Not stated'].map(cleanResolvedValue)).toEqual([null, null, null, null]);
  });
});

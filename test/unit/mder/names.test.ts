import { describe, expect, it } from 'vitest';
import { lexicalEvidence, normaliseName } from '../../../src-main/engine/mder/names.js';

// Written against the mutants that survived `npm run mutation -- mder/names.ts` with stages.test.ts
// alone (test/mutation/survivors.md): which name pairs Disambiguate gets as lexical candidates.

describe('lexicalEvidence: function words', () => {
  // Each word that starts an "of …" complement: the name is the whole phrase, not its first proper noun.
  it.each(['of', 'de', 'di', 'da', 'du', 'd', 'von', 'van', 'der', 'des', 'del', 'della', 'dei', 'degli'])(
    '"Tuscany %s Adalbert" does not share a head noun with "Tuscany"',
    (w) => {
      expect(lexicalEvidence(`Tuscany ${w} Adalbert`, 'Tuscany')).toBeNull();
    },
  );

  // Each longer function word is skipped in acronyms, and cuts a name before it ("Chopin the Pianist").
  it.each([
    'the',
    'and',
    'for',
    'with',
    'from',
    'von',
    'van',
    'der',
    'den',
    'des',
    'del',
    'della',
    'dei',
    'degli',
    'les',
    'los',
    'las',
    'und',
  ])('"%s" is skipped by acronyms and ends a proper name', (w) => {
    expect(lexicalEvidence('UE', `Union ${w} Europe`)).toBe('acronym');
    if (!['von', 'van', 'der', 'des', 'del', 'della', 'dei', 'degli'].includes(w))
      expect(lexicalEvidence(`Chopin ${w} Pianist`, 'Frédéric Chopin')).toBe('same head noun');
  });

  it('one family name is not one person', () => {
    expect(lexicalEvidence('Robert Kennedy', 'Ted Kennedy')).toBeNull();
    expect(lexicalEvidence('Robert Kennedy', 'Kennedy')).toBe('same head noun');
  });
});

describe('normaliseName', () => {
  it('collapses whitespace runs and strips every quote and punctuation mark at both ends', () => {
    expect(normaliseName(' «"Odysseus"», ')).toBe('Odysseus');
    expect(normaliseName('King   of \t Ithaca')).toBe('King of Ithaca');
  });
});

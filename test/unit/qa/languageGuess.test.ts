import { describe, expect, it } from 'vitest';
import { guessLanguage } from '../../../src-main/engine/qa/language.js';

// guessLanguage's rules one at a time, on texts where a rule alone decides (written against the
// survivors of the sampled qa/ mutation run: test/mutation/survivors.md).
describe('guessing a question language', () => {
  it('lets a script written in one language decide alone, saying so', () => {
    const script = { confident: true, why: 'its script is written in one language' };
    expect(guessLanguage('Ποιος ζωγράφισε τη Μόνα Λίζα;')).toEqual({ ...script, language: 'el', candidates: ['el'] });
    expect(guessLanguage('モナ・リザを描いたのは誰ですか')).toEqual({ ...script, language: 'ja', candidates: ['ja'] });
    expect(guessLanguage('谁画了蒙娜丽莎')).toEqual({ ...script, language: 'zh', candidates: ['zh'] });
    expect(guessLanguage('누가 모나리자를 그렸나요')).toEqual({ ...script, language: 'ko', candidates: ['ko'] });
  });

  it("falls back for a lone word to the interface's language, then the KB's, then English", () => {
    const lone = { confident: false, why: 'too few words of its own to tell' };
    expect(guessLanguage('Odysseus?', { uiLanguage: 'de', kbLanguages: ['it'] })).toEqual({
      ...lone,
      language: 'de',
      candidates: ['de', 'it', 'en'],
    });
    expect(guessLanguage('Odysseus?', { kbLanguages: ['it'] })).toMatchObject({ language: 'it' });
    expect(guessLanguage('Odysseus?')).toEqual({ ...lone, language: 'en', candidates: ['en'] });
  });

  it('names the two leading languages with their scores when none leads clearly, and keeps three candidates', () => {
    expect(guessLanguage('Who painted La Gioconda?')).toEqual({
      language: 'en',
      confident: false,
      candidates: ['en', 'it', 'hu'],
      why: 'its few words read as en (0.4) or it (0.25)',
    });
  });

  it('reads each sentence of a question on its own: a capitalised word that starts one is not a name', () => {
    expect(guessLanguage('Chi era la moglie del re? Era Penelope di Itaca.')).toEqual({
      language: 'it',
      confident: true,
      candidates: ['it', 'ro', 'es'],
      why: 'its own words read as it',
    });
  });

  it('keeps a KB language the detector scored among the candidates, below the top three; not one it did not score', () => {
    const italian = 'Chi era la moglie del re? Era Penelope di Itaca.';
    expect(guessLanguage(italian, { kbLanguages: ['fr'] }).candidates).toEqual(['it', 'ro', 'es', 'fr']);
    expect(guessLanguage(italian, { kbLanguages: ['de'] }).candidates).toEqual(['it', 'ro', 'es']);
  });
});

import { describe, expect, it } from 'vitest';
import { guessLanguage, plausibleCorpusLanguages } from '../../../src-main/engine/qa/language.js';

// guessLanguage's rules one at a time, on texts where a rule alone decides (written against the
// survivors of the sampled qa/ mutation run: test/mutation/survivors.md).
describe('guessing a question language', () => {
  it('lets a script written in one language decide alone, saying so', () => {
    const script = { confident: true, why: 'its script is written in one language' };
    expect(guessLanguage('Ποιος ζωγράφισε τη Μόνα Λίζα;')).toEqual({
      ...script,
      language: 'el',
      candidates: ['el'],
      plausible: ['el'],
    });
    expect(guessLanguage('モナ・リザを描いたのは誰ですか')).toEqual({
      ...script,
      language: 'ja',
      candidates: ['ja'],
      plausible: ['ja'],
    });
    expect(guessLanguage('谁画了蒙娜丽莎')).toEqual({
      ...script,
      language: 'zh',
      candidates: ['zh'],
      plausible: ['zh'],
    });
    expect(guessLanguage('누가 모나리자를 그렸나요')).toEqual({
      ...script,
      language: 'ko',
      candidates: ['ko'],
      plausible: ['ko'],
    });
  });

  it("falls back for a lone word to the interface's language, then the KB's, then English", () => {
    const lone = { confident: false, why: 'too few words of its own to tell' };
    expect(guessLanguage('Odysseus?', { uiLanguage: 'de', kbLanguages: ['it'] })).toEqual({
      ...lone,
      language: 'de',
      candidates: ['de', 'it', 'en'],
      plausible: ['de', 'it', 'en'],
    });
    expect(guessLanguage('Odysseus?', { kbLanguages: ['it'] })).toMatchObject({ language: 'it' });
    expect(guessLanguage('Odysseus?')).toEqual({ ...lone, language: 'en', candidates: ['en'], plausible: ['en'] });
  });

  it('names the two leading languages with their scores when none leads clearly, and keeps three candidates', () => {
    expect(guessLanguage('Who painted La Gioconda?')).toEqual({
      language: 'en',
      confident: false,
      candidates: ['en', 'it', 'hu'],
      plausible: ['en', 'it'],
      why: 'its few words read as en (0.4) or it (0.25)',
    });
  });

  it('reads each sentence of a question on its own: a capitalised word that starts one is not a name', () => {
    expect(guessLanguage('Chi era la moglie del re? Era Penelope di Itaca.')).toEqual({
      language: 'it',
      confident: true,
      candidates: ['it', 'ro', 'es'],
      plausible: ['it'],
      why: 'its own words read as it',
    });
  });

  it('keeps a KB language the detector scored among the candidates, below the top three; not one it did not score', () => {
    const italian = 'Chi era la moglie del re? Era Penelope di Itaca.';
    expect(guessLanguage(italian, { kbLanguages: ['fr'] }).candidates).toEqual(['it', 'ro', 'es', 'fr']);
    expect(guessLanguage(italian, { kbLanguages: ['de'] }).candidates).toEqual(['it', 'ro', 'es']);
  });

  it('keeps every language within its margin as plausible, and of those the ones the KB has a corpus in', () => {
    // it 0.25 / en 0.15 with the KB's bonus: under twice the runner-up, so neither is ruled out.
    const tie = guessLanguage('Chi disfece nottetempo la tessitura funebre?', { kbLanguages: ['it', 'en'] });
    expect(tie).toMatchObject({ language: 'it', confident: false, plausible: ['it', 'en'] });
    expect(tie.candidates).toContain('pt'); // a candidate outside the margin is not plausible
    // A tie-break that picked English does not rule Italian out; one outside the corpora is kept as picked.
    expect(plausibleCorpusLanguages('en', tie, ['it', 'en'])).toEqual(['it', 'en']);
    expect(plausibleCorpusLanguages('it', tie, ['fr'])).toEqual(['en', 'it']);
    const sure = guessLanguage('Chi era la moglie del re? Era Penelope di Itaca.', { kbLanguages: ['it', 'en'] });
    expect(plausibleCorpusLanguages(sure.language, sure, ['it', 'en'])).toEqual(['it']);
  });
});

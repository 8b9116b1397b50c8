import { describe, expect, it } from 'vitest';
import { TokenEstimate, scriptClass } from '../../../src-main/engine/models/endpoints/TokenEstimate.js';

const ENGLISH = 'Penelope waited for Odysseus in Ithaca for twenty years while suitors crowded her hall. '.repeat(5);
const RUSSIAN = 'Пенелопа ждала Одиссея на Итаке двадцать лет, пока женихи пировали в её доме. '.repeat(5);

describe('TokenEstimate', () => {
  it('classes characters by script: kana and kanji, Cyrillic, Latin with spaces, digits and punctuation', () => {
    expect([...'王はー'].map(scriptClass)).toEqual(['cjk', 'cjk', 'cjk']);
    expect([...'Жλ'].map(scriptClass)).toEqual(['alphabet', 'alphabet']);
    expect([...'é '].map(scriptClass)).toEqual(['latin', 'latin']);
    expect([...'(;7'].map(scriptClass)).toEqual(['symbol', 'symbol', 'symbol']);
    expect(scriptClass('क')).toBe('other');
  });

  it('cuts a text into consecutive pieces within the budget', () => {
    const estimate = new TokenEstimate();
    const text = `${ENGLISH}王は帰った。`.repeat(3);
    const pieces = estimate.cut(text, 50);
    expect(pieces.join('')).toBe(text);
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) expect(estimate.count(piece)).toBeLessThanOrEqual(50);
    expect(estimate.cut('', 50)).toEqual(['']);
  });

  it('a /tokenize count calibrates the Latin class only', () => {
    const sample = 'Odysseus was the king of Ithaca, and Penelope his wife.';
    const calibrated = TokenEstimate.calibrated(sample, 12);
    expect(calibrated.count(sample)).toBe(12);
    expect(calibrated.count(sample)).toBeLessThan(new TokenEstimate().count(sample));
    expect(calibrated.count('王は帰った。Ждала')).toBe(new TokenEstimate().count('王は帰った。Ждала'));
  });

  it('an exact count lowers the dominant class halfway; a lower bound (a server that may cut) does not', () => {
    const real = 80;
    const exact = new TokenEstimate();
    const first = exact.count(ENGLISH);
    exact.learn([ENGLISH], real + 2, 2, true);
    expect(Math.abs(exact.count(ENGLISH) - (first + real) / 2)).toBeLessThanOrEqual(1);
    expect(exact.count('王は帰った。')).toBe(new TokenEstimate().count('王は帰った。'));

    const bound = new TokenEstimate();
    bound.learn([ENGLISH], real + 2, 2, false);
    expect(bound.count(ENGLISH)).toBe(first);
  });

  it('a count above the estimate raises the class at once, exact or not', () => {
    const estimate = new TokenEstimate();
    const real = 2 * estimate.count(RUSSIAN);
    estimate.learn([RUSSIAN], real, 0, false);
    expect(estimate.count(RUSSIAN)).toBeGreaterThanOrEqual(real - 1);
  });

  it('learns nothing from a mix no class dominates, or from a few characters', () => {
    const estimate = new TokenEstimate();
    const mixed = `${ENGLISH}${'王'.repeat(140)}`;
    const before = estimate.count(mixed);
    estimate.learn([mixed], 10 * before, 0, true);
    estimate.learn(['Penelope waited.'], 100, 0, true);
    expect(estimate.count(mixed)).toBe(before);
    expect(estimate.count('Penelope waited.')).toBe(new TokenEstimate().count('Penelope waited.'));
  });

  it('a refusal raises the classes of the refused texts only', () => {
    const estimate = new TokenEstimate();
    estimate.stretch([RUSSIAN]);
    expect(estimate.count(RUSSIAN)).toBeGreaterThan(new TokenEstimate().count(RUSSIAN));
    expect(estimate.count('王は帰った')).toBe(new TokenEstimate().count('王は帰った'));
  });
});

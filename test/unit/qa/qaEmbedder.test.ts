import { describe, expect, it } from 'vitest';
import { cosine } from '../../../src-main/engine/models/Embedder.js';
import { QaEmbedder, WIFE_OF_KING } from './support/qaScript.js';

/**
 * The QA tests' embedder is as crowded as a multilingual one: a question and its translations are
 * close but never one point, and a question about another hop is nearer than any translation, so
 * ranking, fusion and τ decide what the strategies see.
 */
describe('QaEmbedder', () => {
  it('puts translations close but not on one point, and a near distractor closer still', async () => {
    const embedder = new QaEmbedder();
    const [en, it, fr, es, kingOnly, motherOf] = await embedder.embed([
      WIFE_OF_KING.en,
      WIFE_OF_KING.it,
      WIFE_OF_KING.fr,
      WIFE_OF_KING.es,
      'Who was the king of Ithaca?',
      'Who was the mother of Penelope?',
    ]);
    const translations = [it!, fr!, es!].map((v) => cosine(en!, v));
    for (const c of translations) {
      expect(c).toBeGreaterThan(0.85);
      expect(c).toBeLessThan(0.95);
    }
    // The one-hop question shares more words than any translation: nearer than all of them.
    expect(cosine(en!, kingOnly!)).toBeGreaterThan(Math.max(...translations));
    // An unrelated question is still within the crowd (multilingual-e5 puts every pair above ≈ 0.7).
    expect(cosine(en!, motherOf!)).toBeGreaterThan(0.75);
  });
});

import { describe, expect, it } from 'vitest';
import { calibrateSimilarity, PAPER_THRESHOLDS } from '../../../src-main/engine/mder/calibration/index.js';
import { cosine, type Embedder } from '../../../src-main/engine/models/Embedder.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';
import { CHUNK_SCRIPT, CORPUS_FILES } from '../../support/corpusScript.js';
import { CrowdedEmbedder } from './support/CrowdedEmbedder.js';
import { LEXICON } from './support/lexicon.js';

/**
 * DaPT's τ is calibrated on what fusion must tell apart (issue 21 point 8): a sub-question and its
 * translation fuse, two different questions about the same thing do not. Checked on sub-questions
 * that are not among the calibration's references: the Odyssey's, as DaPT's two decompositions
 * would write them.
 */

const sentences = CORPUS_FILES.flatMap((f) => CHUNK_SCRIPT[f].map((c) => c.summary.split(/(?<=\.) /)[0]!));
const names = [
  ...new Set(CORPUS_FILES.flatMap((f) => CHUNK_SCRIPT[f].flatMap((c) => c.triples.flatMap(([s, , , o]) => [s, o])))),
];

/** Held-out sub-question pairs: translations, and different questions about the same people. */
const TRANSLATIONS = [
  ['Chi era la moglie di Ulisse?', 'Who was the wife of Odysseus?'],
  ['Quanti anni ha aspettato Penelope?', 'How many years did Penelope wait?'],
  ['Chi era il padre di Telemaco?', 'Who was the father of Telemachus?'],
] as const;
const SAME_TOPIC = [
  ['Chi era la moglie di Ulisse?', 'How many years did Odysseus wait?'],
  ['Quanti anni ha aspettato Penelope?', 'Who was the husband of Penelope?'],
  ['Chi era il padre di Telemaco?', 'How many years did Telemachus wait?'],
  // The same question about someone else: above the unrelated sentences' 99th percentile (τ before this calibration).
  ['Chi era la moglie di Ulisse?', 'Who was the wife of Telemachus?'],
  ['Quanti anni ha aspettato Penelope?', 'How many years did Odysseus wait?'],
  ['Chi era il padre di Telemaco?', 'Who was the father of Odysseus?'],
  ['Chi era la moglie di Ulisse?', 'Who was the husband of Penelope?'],
] as const;

async function sims(embedder: Embedder, pairs: readonly (readonly [string, string])[]): Promise<number[]> {
  const vectors = await embedder.embed(pairs.flat(), { purpose: 'query' });
  return pairs.map((_, i) => cosine(vectors[2 * i]!, vectors[2 * i + 1]!));
}

describe('DaPT fusion threshold', () => {
  it('a multilingual embedder (e5-like scale): τ fuses held-out translations and no same-topic pair, where τ = 0.8 fuses both', async () => {
    const embedder = new CrowdedEmbedder({ concepts: LEXICON, crowding: 0.8 });
    const calibration = await calibrateSimilarity(embedder, { names, sentences, entityCount: names.length });
    const translations = await sims(embedder, TRANSLATIONS);
    const sameTopic = await sims(embedder, SAME_TOPIC);
    expect(calibration.fusion?.separated).toBe(true);
    for (const s of translations) expect(s).toBeGreaterThanOrEqual(calibration.fusionThreshold);
    for (const s of sameTopic) expect(s).toBeLessThan(calibration.fusionThreshold);
    expect(Math.min(...sameTopic)).toBeGreaterThan(PAPER_THRESHOLDS.fusion);
  });

  it('an embedder that is not multilingual (character n-grams): τ above every same-topic pair, so nothing fuses wrongly', async () => {
    const embedder = new NgramEmbedder(256);
    const calibration = await calibrateSimilarity(embedder, { names, sentences, entityCount: names.length });
    const sameTopic = await sims(embedder, SAME_TOPIC);
    expect(calibration.fusion?.separated).toBe(false);
    for (const s of sameTopic) expect(s).toBeLessThan(calibration.fusionThreshold);
  });
});

import { describe, expect, it } from 'vitest';
import {
  calibrateSimilarity,
  needsCalibration,
  PAPER_THRESHOLDS,
} from '../../../src-main/engine/mder/calibration/index.js';
import { REFERENCE_NAMES } from '../../../src-main/engine/mder/calibration/referenceTexts.js';
import { fuseGraphs, type SubQuestion } from '../../../src-main/engine/qa/dapt/SubQuestionGraph.js';
import { cosine } from '../../../src-main/engine/models/Embedder.js';
import { CHUNK_SCRIPT, CORPUS_FILES } from '../../support/corpusScript.js';
import { CrowdedEmbedder } from './support/CrowdedEmbedder.js';
import { LEXICON } from './support/lexicon.js';

/** Word-for-word translations (it/en) as one meaning each, plus the people of the corpus in four languages. */
const CONCEPTS = [
  ['Odysseus', 'Ulisse', 'Ulises', 'Ulysses', 'Ulysse'],
  ['Penelope', 'Pénélope'],
  ['Telemachus', 'Telemaco', 'Telémaco'],
  ['who', 'chi'],
  ['was', 'era'],
  ['wife', 'moglie'],
  ['how many', 'quanti'],
  ['years', 'anni'],
  ['wait', 'aspettato'],
  ['father', 'padre'],
];

const corpusNames = [
  ...new Set(CORPUS_FILES.flatMap((f) => CHUNK_SCRIPT[f].flatMap((c) => c.triples.flatMap(([s, , , o]) => [s, o])))),
];
const corpusSentences = CORPUS_FILES.flatMap((f) => CHUNK_SCRIPT[f].map((c) => c.summary.split(/(?<=\.) /)[0]!));

describe('similarity calibration on an e5-like crowded scale', () => {
  const embedder = new CrowdedEmbedder({ concepts: CONCEPTS });

  it('puts the merge threshold between unrelated names and true duplicates, where the paper’s 0.95 finds none', async () => {
    const calibration = await calibrateSimilarity(embedder, {
      names: corpusNames,
      sentences: corpusSentences,
      entityCount: corpusNames.length,
    });
    const sim = async (a: string, b: string) => {
      const [x, y] = await embedder.embed([a, b]);
      return cosine(x!, y!);
    };
    for (const [a, b] of [
      ['Odysseus', 'Ulisse'],
      ['Ulisse', 'Ulises'],
      ['Telemachus', 'Telémaco'],
      ['Penelope', 'Pénélope'],
    ] as const) {
      const s = await sim(a, b);
      expect(s, `${a}~${b}`).toBeGreaterThanOrEqual(calibration.mergeThreshold);
      expect(s, `${a}~${b}`).toBeLessThan(PAPER_THRESHOLDS.merge);
    }
    // Unrelated corpus names: about 1% above the threshold (the LLM rejects those), never most of them.
    const unrelated = corpusNames.filter((n) => !CONCEPTS.some((c) => c.includes(n)));
    const vectors = await embedder.embed(unrelated);
    const sims = vectors.flatMap((v, i) => vectors.slice(i + 1).map((w) => cosine(v, w)));
    expect(sims.filter((s) => s >= calibration.mergeThreshold).length / sims.length).toBeLessThan(0.03);
    expect(calibration).toMatchObject({
      embedder: embedder.identity,
      percentile: 0.99,
      entityCount: corpusNames.length,
    });
    expect(calibration.names.pairs).toBeGreaterThan(1000);
    expect(calibration.names.p50).toBeGreaterThan(0.7);
  });

  it('DaPT fuses a sub-question with its translation but not unrelated ones, which τ = 0.8 does', async () => {
    // Questions crowd higher than names on e5 (0.75–0.85 for unrelated ones).
    // A multilingual embedder knows the calibration's reference sub-questions' words too.
    const embedder = new CrowdedEmbedder({ concepts: LEXICON, crowding: 0.8 });
    const calibration = await calibrateSimilarity(embedder, {
      names: corpusNames,
      sentences: corpusSentences,
      entityCount: corpusNames.length,
    });
    const node = (id: string, question: string, dependsOn: string[] = []): SubQuestion => ({ id, question, dependsOn });
    const source = [
      node('1', 'Chi era la moglie di Ulisse?'),
      node('2', 'Quanti anni ha aspettato la moglie di Ulisse?', ['1']),
    ];
    // The English decomposition went another way: its second node asks the same of someone else.
    const english = [node('1', 'Who was the wife of Odysseus?'), node('2', 'How many years did Telemachus wait?')];
    const vectors = await embedder.embed(
      [...source, ...english].map((n) => n.question),
      { purpose: 'query' },
    );
    const similarity = source.map((_, i) => english.map((__, j) => cosine(vectors[i]!, vectors[2 + j]!)));
    expect(similarity[1]![1]).toBeGreaterThan(PAPER_THRESHOLDS.fusion);

    const calibrated = fuseGraphs(source, english, similarity, calibration.fusionThreshold);
    expect(calibrated.fusions.map((f) => `${f.sourceId}~${f.englishId}`)).toEqual(['1~1']);
    const paper = fuseGraphs(source, english, similarity, PAPER_THRESHOLDS.fusion);
    expect(paper.fusions.map((f) => `${f.sourceId}~${f.englishId}`)).toEqual(['1~1', '2~2']);
  });

  it('raises the merge threshold with the KB (about 0.1 unrelated candidates per entity)', async () => {
    const small = await calibrateSimilarity(embedder, {
      names: corpusNames,
      sentences: corpusSentences,
      entityCount: 20,
    });
    const large = await calibrateSimilarity(embedder, {
      names: corpusNames,
      sentences: corpusSentences,
      entityCount: 10_000,
    });
    expect(small.mergePercentile).toBeCloseTo(0.995, 6);
    expect(large.mergePercentile).toBeCloseTo(0.99999, 6);
    expect(large.mergeThreshold).toBeGreaterThan(small.mergeThreshold);
    expect(large.mergeThreshold).toBeLessThanOrEqual(large.names.max);
  });

  it('pairs each KB name with every reference name, leaving out a KB name that is a reference name', async () => {
    const own = ['Odysseus', 'Penelope', 'Telemachus'];
    const calibrated = (names: string[]) =>
      calibrateSimilarity(embedder, { names, sentences: corpusSentences, entityCount: names.length });
    const r = REFERENCE_NAMES.length;
    const amongReferences = (r * (r - 1)) / 2;
    expect((await calibrated(own)).names.pairs).toBe(amongReferences + r * own.length);
    // A KB name that is one of the references, in another case, would be paired with itself: left out.
    expect((await calibrated([...own, REFERENCE_NAMES[0]!.toUpperCase()])).names.pairs).toBe(
      amongReferences + r * own.length,
    );
  });

  it('is redone when the KB has doubled', () => {
    expect(needsCalibration(null, 10)).toBe(true);
    const c = { entityCount: 100 } as Parameters<typeof needsCalibration>[0];
    expect(needsCalibration(c, 150)).toBe(false);
    expect(needsCalibration(c, 200)).toBe(true);
  });
});

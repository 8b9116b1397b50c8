import { throwIfAborted } from '../../base/abort.js';
import { quantile } from '../../base/quantile.js';
import { cosine, type Embedder, type EmbedPurpose } from '../../models/Embedder.js';
import type { SimilarityCalibration, SimilarityDistribution } from '../../kb/types.js';
import { nameKey } from '../names.js';
import { REFERENCE_FUSION_TOPICS, REFERENCE_NAMES, REFERENCE_QUESTIONS } from './referenceTexts.js';

/** How thresholds are chosen: fitted to the KB's embedder, or the papers' absolute values. */
export type ThresholdMode = 'calibrated' | 'paper';

/** The papers' absolute values (tuned on mxbai-embed-large and BGE-M3). */
export const PAPER_THRESHOLDS = Object.freeze({
  /** MDER-DR §3.1: a new chunk where adjacent-window similarity drops below this. */
  chunking: 0.75,
  /** MDER-DR §3.1: name similarity from which a pair goes to the LLM. */
  merge: 0.95,
  /** DaPT §2.2: τ, sub-question similarity from which two nodes fuse. */
  fusion: 0.8,
});

export interface CalibrateSimilarityOptions {
  /** A sample of the KB's entity names. */
  names: readonly string[];
  /** A sample of the KB's sentences (English text). */
  sentences: readonly string[];
  /** Entities in the KB now (recorded, to know when to calibrate again). */
  entityCount: number;
  /** Where among unrelated pairs a threshold sits. Default: 0.99 (a pair more similar than 99% of unrelated ones). */
  percentile?: number;
  /**
   * Unrelated names expected above the merge threshold per entity: the LLM cost of false
   * candidates. With N entities each has N − 1 others, so the merge threshold sits at the
   * 1 − this/N percentile (never below `percentile`; at most the sample's maximum). Default: 0.1.
   */
  candidatesPerEntity?: number;
  signal?: AbortSignal;
}

/**
 * Fits Disambiguate's and DaPT's thresholds to the embedder. Absolute cosines mean different
 * things per model: multilingual-e5 puts unrelated names at 0.7–0.8, where mxbai puts them
 * near 0.4, so the papers' 0.95 and 0.8 mean "almost never a candidate" on one and "fuse
 * everything" on the other. Instead each threshold is a high percentile of the similarities of
 * pairs known to be unrelated, measured with this embedder on this KB's kind of text: each of
 * the KB's names against a fixed list of unrelated reference names (and the references among
 * themselves), each of its sentences against reference questions. Pairing with references keeps
 * the KB's real duplicates (what Disambiguate looks for) out of the sample. DaPT's τ is fitted on
 * what it must tell apart: reference sub-questions and their translations against different
 * questions about the same topic (see {@link fusionThreshold}). The LLM still
 * confirms every merge; the threshold only decides what it is asked. As a share of all pairs
 * grows with the KB, the merge threshold rises with it (about `candidatesPerEntity` unrelated
 * names above it per entity, capped by the sample's maximum), so the LLM cost stays linear in
 * the KB.
 */
export async function calibrateSimilarity(
  embedder: Embedder,
  options: CalibrateSimilarityOptions,
): Promise<SimilarityCalibration> {
  const percentile = options.percentile ?? 0.99;
  const mergeLevel = Math.max(percentile, 1 - (options.candidatesPerEntity ?? 0.1) / Math.max(1, options.entityCount));
  const names = await unrelatedPairs(embedder, dedupe(options.names), REFERENCE_NAMES, 'passage', options.signal);
  const sentences = await unrelatedPairs(
    embedder,
    dedupe(options.sentences),
    REFERENCE_QUESTIONS,
    'query',
    options.signal,
  );
  const names_ = distribution(names);
  const sentences_ = distribution(sentences);
  const fusion = await fusionPairs(embedder, options.signal);
  return {
    embedder: embedder.identity,
    calibratedAt: new Date().toISOString(),
    entityCount: options.entityCount,
    percentile,
    names: names_,
    sentences: sentences_,
    mergeThreshold: round(Math.min(0.99, quantile(names, mergeLevel))),
    mergePercentile: mergeLevel,
    fusionThreshold: fusionThreshold(fusion, quantile(sentences, percentile)),
    fusion: {
      translations: distribution(fusion.translations),
      sameTopic: distribution(fusion.sameTopic),
      separated: separated(fusion),
    },
  };
}

/**
 * Cosines of the reference sub-questions with their translations, and of different questions
 * about one topic across the two languages: fusion compares a node of the question-language graph
 * with a node of the English one (the decomposition prompt writes the source graph in the
 * question's language), never two nodes of one language.
 */
async function fusionPairs(
  embedder: Embedder,
  signal?: AbortSignal,
): Promise<{ translations: Float64Array; sameTopic: Float64Array }> {
  throwIfAborted(signal);
  const texts = REFERENCE_FUSION_TOPICS.flatMap((t) => [...t.english, ...t.translated]);
  const vectors = await embedder.embed(texts, { purpose: 'query', ...(signal ? { signal } : {}) });
  const translations: number[] = [];
  const sameTopic: number[] = [];
  REFERENCE_FUSION_TOPICS.forEach((_, i) => {
    const [en1, en2, tr1, tr2] = vectors.slice(4 * i, 4 * i + 4) as [
      Float32Array,
      Float32Array,
      Float32Array,
      Float32Array,
    ];
    translations.push(cosine(en1, tr1), cosine(en2, tr2));
    sameTopic.push(cosine(en1, tr2), cosine(en2, tr1));
  });
  const sorted = (xs: number[]) => Float64Array.from(xs).sort();
  return { translations: sorted(translations), sameTopic: sorted(sameTopic) };
}

/** Most translations above most same-topic pairs (their 10th and 90th percentiles). */
function separated(pairs: { translations: Float64Array; sameTopic: Float64Array }): boolean {
  return quantile(pairs.translations, 0.1) > quantile(pairs.sameTopic, 0.9);
}

/** A wrong fusion gives two questions one answer; a missed one only solves both graphs' nodes apart. */
const WRONG_FUSION_COST = 2;

/**
 * DaPT's τ (seed 002 §2.2 fuses "semantically equivalent" sub-questions at 0.8 on its embedder):
 * the cut that makes the fewest errors on the reference pairs, a wrong fusion (a same-topic pair
 * at or above τ) counting {@link WRONG_FUSION_COST} missed ones (a translation below τ), the
 * highest such cut on a tie. An embedder that separates the two puts τ midway in the gap; one that
 * does not (questions one relation apart, "the mother of X" and "the son of X", come as close as a
 * translation on e5-like embedders; one that is not multilingual puts two questions sharing a name
 * above a question and its translation) gets τ where wrong fusions stop paying for the fusions
 * they allow. Never below the unrelated sentences' percentile.
 */
function fusionThreshold(pairs: { translations: Float64Array; sameTopic: Float64Array }, unrelated: number): number {
  const values = [...new Set([...pairs.translations, ...pairs.sameTopic])].sort((a, b) => a - b);
  const cuts = [values[0]! - 0.01, ...values.slice(1).map((v, i) => (values[i]! + v) / 2), values.at(-1)! + 0.01];
  const cost = (tau: number): number =>
    WRONG_FUSION_COST * pairs.sameTopic.filter((s) => s >= tau).length +
    pairs.translations.filter((t) => t < tau).length;
  let best = cuts[0]!;
  for (const cut of cuts) if (cost(cut) <= cost(best)) best = cut;
  return round(Math.min(0.99, Math.max(unrelated, best)));
}

/** Whether a KB's calibration should be redone: none yet, or the KB has since doubled. */
export function needsCalibration(current: SimilarityCalibration | null, entityCount: number): boolean {
  return current === null || entityCount >= 2 * Math.max(1, current.entityCount);
}

/** Sorted cosines of every own × reference pair and every reference × reference pair whose texts differ. */
async function unrelatedPairs(
  embedder: Embedder,
  own: readonly string[],
  references: readonly string[],
  purpose: EmbedPurpose,
  signal?: AbortSignal,
): Promise<Float64Array> {
  throwIfAborted(signal);
  const referenceKeys = new Set(references.map(nameKey));
  const kept = own.filter((t) => !referenceKeys.has(nameKey(t)));
  const vectors = await embedder.embed([...references, ...kept], { purpose, ...(signal ? { signal } : {}) });
  const refs = vectors.slice(0, references.length);
  const mine = vectors.slice(references.length);
  const out: number[] = [];
  for (const [i, r] of refs.entries()) {
    for (let j = i + 1; j < refs.length; j++) out.push(cosine(r, refs[j]!));
    for (const m of mine) out.push(cosine(r, m));
  }
  return Float64Array.from(out).sort();
}

function distribution(sorted: Float64Array): SimilarityDistribution {
  return {
    pairs: sorted.length,
    p50: round(quantile(sorted, 0.5)),
    p90: round(quantile(sorted, 0.9)),
    p99: round(quantile(sorted, 0.99)),
    max: round(sorted.at(-1) ?? Number.NaN),
  };
}

function dedupe(texts: readonly string[]): string[] {
  const seen = new Set<string>();
  return texts.filter((t) => {
    const key = nameKey(t);
    if (!key || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

import type { KnowledgeBase, SimilarityCalibration } from '../../kb/index.js';
import type { Embedder } from '../../models/Embedder.js';
import { splitSentences } from '../../ingest/index.js';
import { calibrateSimilarity, needsCalibration } from './calibrateSimilarity.js';

/** Entity names and sentences sampled per calibration (evenly over the KB). */
const SAMPLE_NAMES = 200;
const SAMPLE_SENTENCES = 100;

/**
 * The KB's calibration for `embedder`, measured and recorded first when there is none yet (or
 * the KB has doubled since): a sample of its entity names and of its English sentences, spread
 * evenly by id, is compared with the reference texts.
 */
export async function calibrateKb(
  kb: KnowledgeBase,
  embedder: Embedder,
  options: { percentile?: number; signal?: AbortSignal } = {},
): Promise<SimilarityCalibration> {
  const current = kb.vectors.similarityCalibration();
  const { entities, chunks } = kb.stats();
  if (
    current &&
    !needsCalibration(current, entities) &&
    (options.percentile === undefined || options.percentile === current.percentile)
  )
    return current;
  const names = everyNth(kb.graph.iterateEntities(), entities, SAMPLE_NAMES).map((e) => e.name);
  const sentences = everyNth(kb.documents.iterateChunks(), chunks, SAMPLE_SENTENCES).flatMap((chunk) => {
    const text = chunk.englishText ?? chunk.text;
    const [first] = splitSentences(text, 'en');
    return first ? [text.slice(first.start, first.end).trim()] : [];
  });
  const calibration = await calibrateSimilarity(embedder, { names, sentences, entityCount: entities, ...options });
  kb.vectors.setSimilarityCalibration(calibration);
  return calibration;
}

/** Up to `want` items spread evenly over the `total` that `items` yields (one pass). */
function everyNth<T>(items: Iterable<T>, total: number, want: number): T[] {
  const stride = Math.max(1, Math.floor(total / want));
  const out: T[] = [];
  let i = 0;
  for (const item of items) {
    if (out.length >= want) break;
    if (i++ % stride === 0) out.push(item);
  }
  return out;
}

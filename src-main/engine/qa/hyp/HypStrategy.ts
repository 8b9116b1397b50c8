import { z } from 'zod';
import { mapConcurrent } from '../../base/concurrency.js';
import type { ScoredId } from '../../kb/types.js';
import { verbaliseTriple } from '../../kb/verbaliseTriple.js';
import { roundScore, type EvidenceItem } from '../EvidencePool.js';
import { fence } from '../../base/fence.js';
import type { QaRun } from '../QaRun.js';
import { reciprocalRankFusion } from '../retrieval/reciprocalRankFusion.js';
import { fitEvidence, synthesiseAnswer } from '../synthesis.js';
import type { QaKb, Strategy, StrategyResult } from '../types.js';

const PathTripleSchema = z.object({ subject: z.string(), relation: z.string(), object: z.string() });
export const PathsSchema = z.object({
  paths: z
    .array(z.object({ direction: z.enum(['forward', 'backward']), triples: z.array(PathTripleSchema).max(8) }))
    .max(6),
});
const score = z.number().int().min(0).max(2);
/**
 * Most candidates per judge call. Bounding the ids makes the grammar an enum of them: an unbounded
 * integer lets the model write `1e999` (the grammar allows exponents), which parses as Infinity.
 */
const JUDGE_BATCH_MAX = 64;
/** The judge's reply for a batch of `size` candidates: each score names its candidate by number, 1..size. */
export function judgeSchema(size: number) {
  const id = z
    .number()
    .int()
    .min(1)
    .max(Math.max(1, Math.min(size, JUDGE_BATCH_MAX)));
  return z.object({
    scores: z.array(z.object({ id, directness: score, entityClarity: score, contextRelevance: score })),
  });
}
/** Rounds of asking again for the candidates a reply left unscored. */
const JUDGE_RETRIES = 2;

/** KB vocabulary shown to the path planner so its classes and relations match the graph's. */
const VOCABULARY_SIZE = 40;
/**
 * Longer names are extraction noise, not a class or relation to reuse; listing them could also
 * push the planner's prompt past the model's context and fail the whole question.
 */
const VOCABULARY_NAME_MAX_CHARS = 60;
/** The most used classes and relations of the KB (which keeps both until its graph changes). */
function vocabulary(kb: QaKb): { classes: string; relations: string } {
  const names = (rows: readonly { name: string }[]): string => {
    const kept: string[] = [];
    for (const r of rows) {
      if (kept.length === VOCABULARY_SIZE) break;
      if (r.name.length <= VOCABULARY_NAME_MAX_CHARS) kept.push(r.name);
    }
    return kept.join(', ') || '(none)';
  };
  return { classes: fence(names(kb.graph.entityTypes())), relations: fence(names(kb.graph.relations())) };
}

/**
 * HyP-KGRAG (seed 001): the LLM writes class-constrained hypothetical paths in both directions,
 * length fitted to the question; each hypothetical triple is linearly verbalised like the KB's
 * triples and retrieves factual triples by dense similarity and BM25 (fused by reciprocal rank,
 * deduplicated); an LLM judge scores each candidate on directness, entity clarity and context
 * relevance and those reaching the threshold answer the question, with their MDER descriptions
 * when the KB has them. Needs only triples, so it works on imported RDF graphs too.
 */
export const hypStrategy: Strategy = {
  name: 'hyp',
  usesRetrieval: true,
  async answer(run: QaRun): Promise<StrategyResult> {
    const { perTripleK, maxCandidates, maxPathTriples } = run.settings.hyp;
    const english = await run.englishQuestion();
    const queries = await hypotheticalPaths(run, english, maxPathTriples);

    const candidates = await run.step('retrieve triples', async (s) => {
      const lists: ScoredId[][] = [];
      const perQuery: unknown[] = [];
      for (const [i, r] of (await run.retriever.hybridOfEach('triple', queries, perTripleK)).entries()) {
        lists.push(r.dense, r.sparse);
        perQuery.push({
          query: queries[i],
          dense: r.dense.length,
          sparse: r.sparse.length,
          top: r.fused.slice(0, 5).map((x) => x.id),
        });
      }
      const fused = reciprocalRankFusion(lists, run.settings.shared.rrfK);
      const kept = run.retriever
        .triples(fused.slice(0, maxCandidates))
        .map(({ triple, score: sc }) => run.retriever.tripleEvidence(triple, sc));
      s.detail.queries = perQuery;
      s.detail.unique = fused.length;
      s.detail.candidates = kept.map((c) => ({ id: c.id, triple: c.label, score: roundScore(c.score) }));
      return kept;
    });

    const kept = await judge(run, english, candidates);
    return synthesiseAnswer(run, run.question, kept);
  },
};

/** Verbalised hypothetical triples (step `hypothetical paths`); without usable paths the question itself is the query. */
async function hypotheticalPaths(run: QaRun, english: string, maxPathTriples: number): Promise<string[]> {
  return run.step('hypothetical paths', async (s) => {
    const value = await s.tryJson('qa/hyp-paths', { question: fence(english), ...vocabulary(run.ctx.kb) }, PathsSchema);
    if (value) {
      s.detail.paths = value.paths;
      const texts = [
        ...new Set(
          value.paths
            .flatMap((p) => p.triples.map((t) => verbaliseTriple(t.subject, t.relation, t.object)))
            .filter((t) => t.length > 0),
        ),
      ].slice(0, maxPathTriples);
      s.detail.verbalised = texts;
      if (texts.length > 0) return texts;
    }
    s.detail.fallback = 'question used as the only query';
    return [english];
  });
}

/**
 * LLM-as-judge denoising (step `judge`), batched over the model's parallel sequences. Scores are
 * matched to candidates by the number they carry; candidates a reply skipped, or whose batch's
 * reply failed its schema, are judged again in new batches (up to {@link JUDGE_RETRIES} more
 * rounds). What still has no score is kept unjudged (flagged in the trace with why) rather than lost.
 */
async function judge(run: QaRun, english: string, candidates: readonly EvidenceItem[]): Promise<EvidenceItem[]> {
  const { judgeThreshold } = run.settings.hyp;
  return run.step('judge', async (s) => {
    const scored = new Map<EvidenceItem, Scores>();
    let pending: readonly EvidenceItem[] = candidates;
    let invalid: EvidenceItem[] = [];
    const rounds: number[] = [];
    for (let round = 0; round <= JUDGE_RETRIES && pending.length > 0; round++) {
      rounds.push(pending.length);
      const results = await mapConcurrent(judgeBatches(run, pending), run.llm.parallelism, async (batch) => {
        const candidatesText = batch.map((c, i) => `[${i + 1}] ${fence(c.text)}`).join('\n');
        return {
          batch,
          value: await s.tryJson(
            'qa/hyp-judge',
            { question: fence(english), candidates: candidatesText },
            judgeSchema(batch.length),
          ),
        };
      });
      const skipped: EvidenceItem[] = [];
      invalid = [];
      for (const { batch, value } of results) {
        if (!value) {
          invalid.push(...batch);
          continue;
        }
        const byId = new Map<number, Scores>();
        for (const x of value.scores) if (!byId.has(x.id)) byId.set(x.id, x); // a repeated id keeps its first score
        batch.forEach((c, i) => {
          const sc = byId.get(i + 1);
          if (sc) scored.set(c, sc);
          else skipped.push(c);
        });
      }
      pending = [...skipped, ...invalid];
    }
    const all = candidates.map((item) => {
      const sc = scored.get(item) ?? null;
      return {
        item,
        scores: sc,
        total: sc ? sc.directness + sc.entityClarity + sc.contextRelevance : null,
        unjudged: sc === null,
      };
    });
    const keep = all.filter((j) => j.unjudged || judgeKeeps(j.scores as Scores, judgeThreshold));
    keep.sort((a, b) => (b.total ?? -1) - (a.total ?? -1) || b.item.score - a.item.score);
    s.detail.threshold = judgeThreshold;
    s.detail.rounds = rounds;
    s.detail.scores = all.map((j) => ({
      id: j.item.id,
      triple: j.item.label,
      directness: j.scores?.directness ?? null,
      entityClarity: j.scores?.entityClarity ?? null,
      contextRelevance: j.scores?.contextRelevance ?? null,
      total: j.total,
      unjudged: j.unjudged
        ? invalid.includes(j.item)
          ? 'reply failed its schema'
          : `not scored after ${rounds.length} asks`
        : false,
      kept: keep.includes(j),
    }));
    s.detail.kept = keep.length;
    s.detail.dropped = all.length - keep.length;
    return keep.map((j) => ({ ...j.item, score: j.total === null ? j.item.score : j.total / 6 }));
  });
}

type Scores = { directness: number; entityClarity: number; contextRelevance: number };

/**
 * Whether judged scores keep a candidate: the total reaches `threshold` and no criterion is 0.
 * The paper scores 1–2 and keeps totals ≥ 3; our judge may also say 0 ("not met at all"), and a
 * total alone would keep (2,1,0) or (0,2,2), facts the judge called off-topic or unrelated.
 */
export function judgeKeeps(scores: Scores, threshold: number): boolean {
  const { directness, entityClarity, contextRelevance } = scores;
  return (
    Math.min(directness, entityClarity, contextRelevance) > 0 &&
    directness + entityClarity + contextRelevance >= threshold
  );
}

/** Batches of at most `hyp.judgeBatchSize` candidates, each also cut to the evidence budget so long triples cannot push a judge prompt past the context. */
function judgeBatches(run: QaRun, candidates: readonly EvidenceItem[]): EvidenceItem[][] {
  const size = Math.min(Math.max(1, run.settings.hyp.judgeBatchSize), JUDGE_BATCH_MAX);
  const batches: EvidenceItem[][] = [];
  for (let rest = candidates; rest.length > 0;) {
    const { kept } = fitEvidence(rest.slice(0, size), run.evidenceTokens, (t) => run.llm.countTokens(t));
    batches.push(kept);
    rest = rest.slice(kept.length);
  }
  return batches;
}

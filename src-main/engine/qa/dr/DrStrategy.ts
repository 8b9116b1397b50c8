import { z } from 'zod';
import { EvidencePool, evidenceBrief, roundScore, type EvidenceItem } from '../EvidencePool.js';
import { fence } from '../../base/fence.js';
import type { QaRun } from '../QaRun.js';
import { fitEvidence, synthesiseAnswer } from '../synthesis.js';
import type { Strategy, StrategyResult } from '../types.js';
import { cleanDecomposition, isPlaceholder, nextResolution, openPlaceholders, propagate, type QueryTriple } from './placeholders.js';

const TripleSchema = z.object({ subject: z.string(), relation: z.string(), object: z.string() });
export const DecompositionSchema = z.object({ triples: z.array(TripleSchema).max(12) });
export const ResolutionSchema = z.object({
  reasoning: z.string(),
  value: z.string().nullable(),
  // A bounded range becomes a fixed list in the grammar: an unbounded integer lets a model write 1e999.
  supporting: z.array(z.number().int().min(1).max(64)).max(64),
});

/**
 * MDER-DR's Decompose–Resolve (seed 000, 3.3): the English question becomes ordered placeholder
 * triples; each placeholder is resolved from the MDER summaries of the top-k entities whose names
 * are nearest the triple's known term, and propagated to the remaining triples; supporting
 * summaries accumulate up to a cap, then up to N more come from question–summary similarity, and
 * the answer is synthesised from them. A decomposition that yields nothing (or fails) leaves the
 * similarity top-up alone, as the paper does for single-word queries.
 */
export const drStrategy: Strategy = {
  name: 'dr',
  usesRetrieval: true,
  async answer(run: QaRun): Promise<StrategyResult> {
    const { candidatesK, summaryCap, similarityTopUp } = run.settings.dr;
    const english = await run.englishQuestion();
    let triples = await decompose(run, english);
    const pool = new EvidencePool(summaryCap);
    const resolved: Record<string, string> = {};

    // Each round resolves one placeholder, so there are at most as many rounds as placeholders.
    const rounds = openPlaceholders(triples).length;
    for (let round = 0, next = nextResolution(triples); next && round < rounds; round++, next = nextResolution(triples)) {
      const step = next;
      const value = await run.step('resolve', async (s) => {
        const triple = triples[step.index] as QueryTriple;
        const candidates = await run.retriever.entitiesByName(step.anchor, candidatesK);
        s.detail.triple = triple;
        s.detail.anchor = step.anchor;
        s.detail.placeholder = step.placeholder;
        s.detail.candidates = candidates.map((c) => ({ id: c.entity.id, name: c.entity.name, score: roundScore(c.score) }));
        // Candidates with a summary, best first, as many as the evidence budget holds.
        const summarised = candidates.filter((c) => c.entity.summary).map((c) => run.retriever.summaryEvidence(c.entity, c.score));
        const withSummary = fitEvidence(summarised, run.evidenceTokens, (t) => run.llm.countTokens(t)).kept;
        if (withSummary.length === 0) return null;
        const r = await s.tryJson('qa/dr-resolve', {
          question: fence(english),
          triples: fence(triples.map(formatTriple).join('\n')),
          triple: fence(formatTriple(triple)),
          placeholder: fence(step.placeholder),
          candidates: withSummary.map((c, i) => `[${i + 1}] ${fence(c.label)}: ${fence(c.text)}`).join('\n'),
        }, ResolutionSchema);
        if (!r) return null;
        s.detail.reasoning = r.reasoning;
        const supporting = r.supporting.map((n) => withSummary[n - 1]).filter((c) => c !== undefined);
        // The grounded value's own summary carries the next hop, so it is kept even when not cited.
        const value = r.value && r.value.trim() && !isPlaceholder(r.value) ? r.value.trim() : null;
        const grounded = value ? (await run.retriever.groundEntity(value)).filter((c) => c.entity.summary).map((c) => run.retriever.summaryEvidence(c.entity, c.score)) : [];
        const added = [...supporting, ...grounded].filter((item) => pool.add(item));
        s.detail.value = value;
        s.detail.grounded = grounded.map(evidenceBrief);
        s.detail.added = added.map((item) => item.label);
        return value;
      });
      if (!value) break; // later triples depend on this placeholder: nothing more can be grounded
      resolved[step.placeholder] = value;
      triples = propagate(triples, step.placeholder, value);
    }

    const evidence = await run.step('similarity top-up', async (s) => {
      const topUp: EvidenceItem[] = [];
      for (const h of await run.retriever.entitiesBySummary(english, similarityTopUp + pool.size)) {
        if (topUp.length >= similarityTopUp) break;
        if (!pool.has({ kind: 'summary', id: h.entity.id })) topUp.push(run.retriever.summaryEvidence(h.entity, h.score));
      }
      s.detail.resolved = resolved;
      s.detail.unresolved = openPlaceholders(triples);
      s.detail.kept = pool.items.map(evidenceBrief);
      s.detail.droppedByCap = pool.dropped.map(evidenceBrief);
      s.detail.added = topUp.map(evidenceBrief);
      return [...pool.items, ...topUp];
    });

    return synthesiseAnswer(run, run.question, evidence);
  },
};

/** Decomposition (step `decompose`); an invalid reply counts as "no triples", which the paper's top-up covers. */
async function decompose(run: QaRun, english: string): Promise<QueryTriple[]> {
  return run.step('decompose', async (s) => {
    const value = await s.tryJson('qa/dr-decompose', { question: fence(english) }, DecompositionSchema);
    const triples = value ? cleanDecomposition(value.triples) : [];
    s.detail.triples = triples;
    return triples;
  });
}

function formatTriple(t: QueryTriple): string {
  return `${t.subject} ${t.relation} ${t.object}`;
}

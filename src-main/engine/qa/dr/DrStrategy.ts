import { z } from 'zod';
import { EvidencePool, evidenceBrief, roundScore, type EvidenceItem } from '../EvidencePool.js';
import { fence } from '../../base/fence.js';
import type { QaRun } from '../QaRun.js';
import { budgetNote, fitEvidence, synthesiseAnswer } from '../synthesis.js';
import type { Strategy, StrategyResult } from '../types.js';
import { withoutParenthetical, spelledAlike } from '../retrieval/Retriever.js';
import {
  cleanDecomposition,
  cleanResolvedValue,
  isPlaceholder,
  nextResolution,
  openPlaceholders,
  propagate,
  skippedTriples,
  type QueryTriple,
  type ResolutionStep,
} from './placeholders.js';

const TripleSchema = z.object({ subject: z.string(), relation: z.string(), object: z.string() });
export const DecompositionSchema = z.object({ triples: z.array(TripleSchema).max(12) });
/** Characters of the resolve reply's reasoning: "reason briefly"; unbounded, a small model can spend the whole budget there. */
const REASONING_MAX_CHARS = 300;
/** Partial summaries of a hub candidate shown beside its summary, nearest the triple first. */
const PARTIALS_PER_CANDIDATE = 2;
export const ResolutionSchema = z.object({
  reasoning: z.string().max(REASONING_MAX_CHARS),
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
    const { summaryCap, similarityTopUp } = run.settings.dr;
    const english = await run.englishQuestion();
    let triples = await decompose(run, english);
    const pool = new EvidencePool(summaryCap);
    const resolved: Record<string, string> = {};
    // A triple with no placeholder ("Odysseus MARRIED_TO Penelope" of a yes/no question) resolves
    // nothing but names what the answer is about: its terms' summaries anchor the evidence.
    const known = triples.filter((t) => !isPlaceholder(t.subject) && !isPlaceholder(t.object));
    if (known.length > 0) await anchorKnown(run, known, pool);

    // Triples are tried in decomposition order, each once; a placeholder no triple resolves only
    // holds back the triples that depend on it (the paper loops until all placeholders are consumed).
    const attempted = new Set<number>();
    for (let next = nextResolution(triples, attempted); next; next = nextResolution(triples, attempted)) {
      attempted.add(next.index);
      const value = await resolveStep(run, english, triples, next, pool);
      if (!value) continue;
      resolved[next.placeholder] = value;
      triples = propagate(triples, next.placeholder, value);
    }

    const evidence = await run.step('similarity top-up', async (s) => {
      const topUp: EvidenceItem[] = [];
      // Entity summaries and hub entities' partial summaries alike (a partial stands for its entity).
      for (const item of await run.retriever.summariesByText(english, similarityTopUp + pool.size)) {
        if (topUp.length >= similarityTopUp) break;
        if (!pool.has(item)) topUp.push(item);
      }
      s.detail.resolved = resolved;
      s.detail.unresolved = openPlaceholders(triples);
      // Triples never tried, each waiting for a placeholder no triple resolved (failed resolutions say why in their own step).
      s.detail.skipped = skippedTriples(triples, attempted).map(({ triple, waitingFor }) => ({
        triple: formatTriple(triple),
        waitingFor,
      }));
      s.detail.kept = pool.items.map(evidenceBrief);
      s.detail.droppedByCap = pool.dropped.map(evidenceBrief);
      s.detail.added = topUp.map(evidenceBrief);
      return [...pool.items, ...topUp];
    });

    return synthesiseAnswer(run, run.question, evidence);
  },
};

/**
 * One resolution (step `resolve`): the anchor's nearest entities by name, their summaries to the
 * model, the value grounded in the KB. A model that names the anchor itself (small models do, the
 * anchor being the first candidate) is asked once more, told so. Returns the value to propagate,
 * or null with `detail.unresolved` saying why.
 */
async function resolveStep(
  run: QaRun,
  english: string,
  triples: readonly QueryTriple[],
  step: ResolutionStep,
  pool: EvidencePool,
): Promise<string | null> {
  const { candidatesK } = run.settings.dr;
  return run.step('resolve', async (s) => {
    const unresolved = (reason: string, supporting: EvidenceItem[] = []): null => {
      s.detail.value = null;
      s.detail.unresolved = reason;
      // What the model cited still bears on the question: it joins the evidence.
      s.detail.added = supporting.filter((item) => pool.add(item)).map((item) => item.label);
      return null;
    };
    const triple = triples[step.index] as QueryTriple;
    const candidates = await run.retriever.namedEntities(step.anchor, candidatesK);
    s.detail.triple = triple;
    s.detail.anchor = step.anchor;
    s.detail.placeholder = step.placeholder;
    s.detail.candidates = candidates.map((c) => ({ id: c.entity.id, name: c.entity.name, score: roundScore(c.score) }));
    // Candidates' summaries, best first, each followed by the partial summaries of a hub candidate
    // nearest the triple (a fact its capped summary left out is in one), as many as the evidence budget holds.
    const partials = await run.retriever.partialsOf(
      candidates.map((c) => c.entity),
      tripleQuery(triple),
      PARTIALS_PER_CANDIDATE,
    );
    const summarised = candidates.flatMap((c) => [
      ...(c.entity.summary ? [run.retriever.summaryEvidence(c.entity, c.score)] : []),
      ...(partials.get(c.entity.id) ?? []).map((p) => run.retriever.partialEvidence(p.partial, c.entity, c.score)),
    ]);
    const fitted = fitEvidence(summarised, run.evidenceTokens, (t) => run.llm.countTokens(t));
    const withSummary = fitted.kept;
    if (fitted.dropped.length > 0) s.detail.droppedForBudget = fitted.dropped.map(evidenceBrief);
    s.detail.budget = budgetNote(fitted.kept, fitted.dropped, run.evidenceTokens, run.llm.contextTokens);
    if (withSummary.length === 0) return unresolved('no candidate entity has a summary');
    const variables = {
      question: fence(english),
      triples: fence(triples.map(formatTriple).join('\n')),
      triple: fence(formatTriple(triple)),
      anchor: fence(step.anchor),
      placeholder: fence(step.placeholder),
      candidates: withSummary.map((c, i) => `[${i + 1}] ${fence(c.label)}: ${fence(c.text)}`).join('\n'),
    };
    let r = await s.tryJson('qa/dr-resolve', { ...variables, retry: '' }, ResolutionSchema);
    if (r && namesAnchor(run, cleanResolvedValue(r.value), step.anchor)) {
      s.detail.rejected = [r.value];
      r = await s.tryJson(
        'qa/dr-resolve',
        {
          ...variables,
          retry: fence(
            `Your previous value "${r.value}" is the anchor itself; give the value of ${step.placeholder}, or null.`,
          ),
        },
        ResolutionSchema,
      );
    }
    if (!r) return unresolved('the reply did not match the schema');
    s.detail.reasoning = r.reasoning;
    const cited = r.supporting.map((n) => withSummary[n - 1]).filter((c) => c !== undefined);
    const value = cleanResolvedValue(r.value);
    if (!value) return unresolved('the summaries do not say', cited);
    if (namesAnchor(run, value, step.anchor))
      return unresolved(`the model named the anchor "${step.anchor}" itself`, cited);
    // Small models often cite nothing: the summaries that state the value (else the anchor's, the
    // best candidate) are what the answer needs for this hop, so they are kept all the same.
    const supporting = cited.length > 0 ? cited : statingValue(withSummary, value);
    if (cited.length === 0) s.detail.uncited = supporting.map((item) => item.label);
    // The grounded value's own summary carries the next hop, so it is kept even when not cited.
    const groundedEntity = await run.retriever.groundEntity(value);
    if (groundedEntity[0] && groundedEntity[0].entity.id === candidates[0]?.entity.id && candidates[0].score === 1) {
      return unresolved(`the model named the anchor "${step.anchor}" itself (as "${value}")`, cited);
    }
    const grounded = groundedEntity
      .filter((c) => c.entity.summary)
      .map((c) => run.retriever.summaryEvidence(c.entity, c.score));
    const added = [...supporting, ...grounded].filter((item) => pool.add(item));
    // The next hop reads the KB's name ("Odysseas", "Ulysses" → Odysseus), not the model's spelling.
    const bare = withoutParenthetical(value) ?? value;
    const propagated = groundedEntity[0]?.entity.name ?? bare;
    s.detail.value = propagated;
    if (propagated !== value) s.detail.written = value;
    s.detail.grounded = grounded.map(evidenceBrief);
    s.detail.added = added.map((item) => item.label);
    return propagated;
  });
}

/** The candidates whose summary names the value (spelled as written or close), else the first one. */
function statingValue(candidates: readonly EvidenceItem[], value: string): EvidenceItem[] {
  const name = (withoutParenthetical(value) ?? value).toLocaleLowerCase();
  const stating = candidates.filter(
    (c) =>
      c.text.toLocaleLowerCase().includes(name) || c.text.split(/[^\p{L}\p{N}]+/u).some((w) => spelledAlike(w, name)),
  );
  return stating.length > 0 ? stating : candidates.slice(0, 1);
}

/** Summaries of the terms of triples that have no placeholder (step `anchor`): the entity each names, exactly or nearest. */
async function anchorKnown(run: QaRun, known: readonly QueryTriple[], pool: EvidencePool): Promise<void> {
  await run.step('anchor', async (s) => {
    const terms = [...new Set(known.flatMap((t) => [t.subject, t.object]))];
    const found: { term: string; entity: string | null; added: boolean; partAdded?: boolean }[] = [];
    const about = known.map(tripleQuery).join('; ');
    for (const term of terms) {
      const [hit] = (await run.retriever.namedEntities(term, 1)).filter((c) => c.entity.summary);
      // A hub's partial summary nearest the triples: the fact they ask about may be only there.
      const [part] = hit ? ((await run.retriever.partialsOf([hit.entity], about, 1)).get(hit.entity.id) ?? []) : [];
      found.push({
        term,
        entity: hit?.entity.name ?? null,
        added: hit ? pool.add(run.retriever.summaryEvidence(hit.entity, hit.score)) : false,
        ...(hit && part
          ? { partAdded: pool.add(run.retriever.partialEvidence(part.partial, hit.entity, hit.score)) }
          : {}),
      });
    }
    s.detail.triples = known.map(formatTriple);
    s.detail.terms = found;
  });
}

/** Whether a value is the anchor itself: the same words, or the same KB entity by name or alias. */
function namesAnchor(run: QaRun, value: string | null, anchor: string): boolean {
  if (value === null) return false;
  const name = withoutParenthetical(value) ?? value;
  if (name.toLocaleLowerCase() === anchor.toLocaleLowerCase()) return true;
  const a = run.retriever.findEntity(anchor);
  return a !== undefined && run.retriever.findEntity(name)?.id === a.id;
}

/** Decomposition (step `decompose`); an invalid reply counts as "no triples", which the paper's top-up covers. */
async function decompose(run: QaRun, english: string): Promise<QueryTriple[]> {
  return run.step('decompose', async (s) => {
    const value = await s.tryJson('qa/dr-decompose', { question: fence(english) }, DecompositionSchema);
    const triples = value ? cleanDecomposition(value.triples) : [];
    s.detail.triples = triples;
    return triples;
  });
}

/** A triple as retrieval text: its known terms and its relation in words, without placeholders. */
function tripleQuery(t: QueryTriple): string {
  const relation = t.relation.replace(/_/g, ' ').toLowerCase();
  return [t.subject, relation, t.object].filter((term) => !isPlaceholder(term)).join(' ');
}

function formatTriple(t: QueryTriple): string {
  return `${t.subject} ${t.relation} ${t.object}`;
}

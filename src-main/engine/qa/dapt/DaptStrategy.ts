import { z } from 'zod';
import { cosine } from '../../models/Embedder.js';
import { EvidencePool, evidenceBrief, type EvidenceItem } from '../EvidencePool.js';
import { fence } from '../../base/fence.js';
import { isEnglish, languageName, writtenLanguage } from '../language.js';
import { isInvalidOutput, type QaRun, type StepScope } from '../QaRun.js';
import { answerWith, budgetNote, fitEvidence, formatEvidence } from '../synthesis.js';
import type { Strategy, StrategyResult } from '../types.js';
import {
  fuseGraphs,
  topologicalOrder,
  validateSubQuestions,
  type FusedNode,
  type SubQuestion,
} from './SubQuestionGraph.js';

export const SubQuestionsSchema = z.object({
  subQuestions: z.array(z.object({ id: z.string(), question: z.string(), dependsOn: z.array(z.string()) })).max(16),
});
export const SubAnswerSchema = z.object({ answer: z.string(), found: z.boolean() });
export const AgreementSchema = z.object({ consistent: z.boolean(), sufficient: z.boolean() });
/** The check of a regenerated answer against the passages it was written from (not against itself). */
export const VerificationSchema = z.object({ supported: z.boolean(), sufficient: z.boolean() });

interface Solved {
  node: FusedNode;
  question: string;
  answer: string;
  found: boolean;
}

/**
 * DaPT (seed 002): the source-language question and its English translation are decomposed into
 * two acyclic sub-question graphs, fused where cross-graph sub-questions are at least τ similar
 * (bilingual nodes), and solved in topological order, each sub-question with the answers it
 * depends on substituted. Each sub-question retrieves from the corpus in its own language (2.3):
 * a source-language one from the chunks as written, an English one from the chunks' English text
 * (kb/chunkCorpora.ts), so a bilingual node has two top-k lists and two candidate answers. An LLM
 * judge checks that the two answers agree and suffice, the source-language one is selected, or the
 * answer is regenerated from the reasoning path and both lists until the judge accepts (bounded by
 * `dapt.maxRegenerations`). The final answer comes from the chain plus retrieval for the original
 * question only, in its language's corpus. An English question has one graph and one corpus.
 */
export const daptStrategy: Strategy = {
  name: 'dapt',
  usesRetrieval: true,
  async answer(run: QaRun): Promise<StrategyResult> {
    const { retrievalK, finalK } = run.settings.dapt;
    const english = await run.englishQuestion();
    const source = sourceLanguage(run);
    const { order, alias } = await plan(run, english, source);

    const pool = new EvidencePool();
    const solved: Solved[] = [];
    const answers = new Map<string, string>();
    for (const node of order) {
      const result = await run.step(`solve ${node.id}`, (s) =>
        solveNode(run, s, node, { answers, alias, solved, pool, k: retrievalK, sourceLanguage: source ?? 'en' }),
      );
      solved.push(result);
      answers.set(node.id, result.answer);
    }

    return run.step('answer', async (s) => {
      // The chain plus retrieval for the original question only (the paper, to cut noise): the
      // sub-questions' passages stay in their steps' traces.
      const asked = readsAsEnglish(run) ? 'en' : (source ?? run.questionLanguage);
      const final = await passages(run, run.question, finalK, corpusOf(asked));
      s.detail.finalRetrieval = final.map(evidenceBrief);
      s.detail.subQuestionPassages = pool.size;
      const chain =
        solved.map((x, i) => `${i + 1}. ${x.question} → ${x.found ? x.answer : '(not found)'}`).join('\n') || '(none)';
      return answerWith(s, run, 'qa/dapt-final', final, (shown) => ({
        question: fence(run.question),
        chain: fence(chain),
        evidence: formatEvidence(shown),
      }));
    });
  },
};

/** Parallel planning, node fusion and topological order (steps `plan`, `fuse`). */
async function plan(
  run: QaRun,
  english: string,
  language: string | null,
): Promise<{ order: FusedNode[]; alias: Map<string, string> }> {
  const { tau, maxNodes } = run.settings.dapt;
  // A translation that failed or came back in the question's language (a small model copies its
  // input) would plan an "English" graph in the source language and search the English corpus with
  // source-language words: the source-language graph answers alone, and the trace says why. A
  // question taken as English that may be in `language` plans both graphs; an English question's
  // translation is itself, so it keeps one as asked only when it reads as English (see readsAsEnglish).
  const untranslated = language !== null && !readsAsEnglish(run) && english.trim() === run.question.trim();
  const bilingual = language !== null && !untranslated;
  const [source, target] = await run.step('plan', (s) => {
    if (untranslated)
      s.detail.untranslated =
        'the translation failed or kept the question as asked: no English graph is planned, the source-language graph answers alone';
    if (language !== null && run.questionLanguages.some(isEnglish))
      s.detail.unsureLanguage = `it may be English or ${languageName(language)}: both paths are planned`;
    const missing = language !== null ? run.retriever.missingOriginalVectors() : 0;
    if (missing > 0) {
      s.detail.originalCorpus =
        `${missing} non-English chunks have no original-language vectors yet (indexed before they existed): ` +
        'the source-language corpus is ranked by BM25 over the text as written ' +
        'and by the English vectors until the knowledge base is embedded again (Embed on the Corpus screen, or `polyhop kb reembed`).';
    }
    return Promise.all([
      decompose(s, run.question, language ?? 'en', maxNodes, 'source'),
      bilingual ? decompose(s, english, 'en', maxNodes, 'english') : Promise.resolve([]),
    ]);
  });
  return run.step('fuse', async (s) => {
    const texts = [...source, ...target].map((n) => n.question);
    await run.retriever.prepare(texts);
    const vectors = await Promise.all(texts.map((t) => run.retriever.embed(t)));
    const similarity = source.map((_, i) =>
      target.map((__, j) => cosine(vectors[i] as Float32Array, vectors[source.length + j] as Float32Array)),
    );
    const { nodes, fusions } = fuseGraphs(source, target, similarity, tau);
    const order = topologicalOrder(nodes);
    s.detail.tau = tau;
    s.detail.similarity = similarity.map((row) => row.map((x) => Math.round(x * 1000) / 1000));
    s.detail.fusions = fusions;
    s.detail.order = order;
    return { order, alias: new Map(fusions.map((f) => [`e:${f.englishId}`, `s:${f.sourceId}`])) };
  });
}

/**
 * One decomposition; an invalid or cyclic graph, or one written in another language than asked,
 * degrades to the whole question as one node (the paper's "w/o decomposition").
 */
async function decompose(
  s: StepScope,
  question: string,
  language: string,
  maxNodes: number,
  label: string,
): Promise<SubQuestion[]> {
  const value = await s.tryJson(
    'qa/dapt-decompose',
    { question: fence(question), language: languageName(language) },
    SubQuestionsSchema,
  );
  try {
    if (value) {
      const nodes = validateSubQuestions(value.subQuestions, maxNodes);
      // A small model asked for source-language sub-questions may write them in English: that graph
      // would fuse node for node with the English one and the source-language path would be lost.
      const written = writtenLanguage(nodes.map((n) => n.question).join(' '), language);
      if (written === null) {
        s.detail[label] = nodes;
        return nodes;
      }
      s.detail[`${label}Rejected`] =
        `its sub-questions are written in ${languageName(written)}, not ${languageName(language)}: the whole question stands as one node`;
    }
  } catch (error) {
    if (!isInvalidOutput(error)) throw error;
    s.detail[`${label}Rejected`] = error instanceof Error ? error.message : String(error);
  }
  const whole = [{ id: '1', question, dependsOn: [] }];
  s.detail[label] = whole;
  return whole;
}

/** Solves one node: retrieval per language, sub-answers, and for bilingual nodes judge → select or regenerate. */
async function solveNode(
  run: QaRun,
  s: StepScope,
  node: FusedNode,
  state: {
    answers: ReadonlyMap<string, string>;
    alias: ReadonlyMap<string, string>;
    solved: readonly Solved[];
    pool: EvidencePool;
    k: number;
    /** The source path's language ('en' when the question has one, English, path). */
    sourceLanguage: string;
  },
): Promise<Solved> {
  const { answers, alias, solved, pool, k, sourceLanguage: language } = state;
  const path = solved.map((x) => `- ${x.question} → ${x.found ? x.answer : '(not found)'}`).join('\n') || '(none yet)';
  const sides = (['source', 'english'] as const).filter((side) => node[side] !== null);
  const budget = run.evidenceTokens - run.llm.countTokens(path);
  const attempts = await Promise.all(
    sides.map(async (side) => {
      // "#id" in a sub-question names a node of its own graph; English nodes may have been fused into source ones.
      const refKey = (id: string): string => (side === 'source' ? `s:${id}` : (alias.get(`e:${id}`) ?? `e:${id}`));
      const question = combine(node[side] as string, node.dependsOn, answers, refKey);
      const corpus = corpusOf(side === 'source' ? language : 'en');
      const retrieved = await passages(run, question, k, corpus);
      // The prompt carries the path too: the passages get what the context leaves after it.
      const { kept: evidence, dropped } = fitEvidence(retrieved, budget, (t) => run.llm.countTokens(t));
      const value = await s.tryJson(
        'qa/dapt-subanswer',
        { path: fence(path), subQuestion: fence(question), passages: formatEvidence(evidence) },
        SubAnswerSchema,
      );
      return { side, corpus, question, evidence, dropped, ...subAnswer(value) };
    }),
  );
  for (const a of attempts) for (const e of a.evidence) pool.add(e);
  s.detail.node = node;
  // As every answer step: what the sub-answer prompts held and left out (both paths together).
  s.detail.budget = budgetNote(
    attempts.flatMap((a) => a.evidence),
    attempts.flatMap((a) => a.dropped),
    budget,
    run.llm.contextTokens,
  );
  s.detail.attempts = attempts.map((a) => ({
    side: a.side,
    corpus: a.corpus,
    query: a.question,
    answer: a.answer,
    found: a.found,
    passages: a.evidence.map(evidenceBrief),
    ...(a.dropped.length > 0 ? { droppedForBudget: a.dropped.map(evidenceBrief) } : {}),
  }));

  const [first, second] = attempts;
  if (!first) return { node, question: node.source ?? node.english ?? '', answer: '', found: false };
  if (!second) return { node, question: first.question, answer: first.answer, found: first.found };

  // An unusable verdict counts as disagreement: the answer is regenerated from both paths.
  const agreement = await s.tryJson(
    'qa/dapt-judge',
    { subQuestion: fence(first.question), answerSource: fence(first.answer), answerEnglish: fence(second.answer) },
    AgreementSchema,
  );
  s.detail.judge = agreement;
  if (agreement?.consistent && agreement.sufficient && (first.found || second.found)) {
    const chosen = first.found ? first : second; // the source language is preferred when both are valid
    s.detail.selected = chosen.side;
    return { node, question: first.question, answer: chosen.answer, found: true };
  }
  // ReGen until the regenerated answer is accepted (the paper: "until it succeeds"), at most
  // dapt.maxRegenerations times; each attempt sees the answers rejected before it. A regeneration
  // is checked against the passages it was written from: judging it against itself as both
  // candidates would accept anything.
  const rejected = [first.answer || '(none)', second.answer || '(none)'];
  const regenerations: { answer: string; found: boolean; accepted: boolean }[] = [];
  s.detail.regenerations = regenerations;
  const subQuestion = fence(`${first.question} / ${second.question}`);
  const both = fitEvidence(interleave(first.evidence, second.evidence), budget, (t) => run.llm.countTokens(t));
  if (both.dropped.length > 0) s.detail.regenerationDroppedForBudget = both.dropped.map(evidenceBrief);
  s.detail.regenerationBudget = budgetNote(both.kept, both.dropped, budget, run.llm.contextTokens);
  const shown = formatEvidence(both.kept);
  let latest: { answer: string; found: boolean } | null = null;
  for (let i = 0; i < run.settings.dapt.maxRegenerations; i++) {
    const value = await s.tryJson(
      'qa/dapt-regenerate',
      { path: fence(path), subQuestion, candidates: fence(rejected.join(' | ')), passages: shown },
      SubAnswerSchema,
    );
    const attempt = subAnswer(value);
    const verdict = attempt.found
      ? await s.tryJson(
          'qa/dapt-verify',
          { subQuestion, answer: fence(attempt.answer), passages: shown },
          VerificationSchema,
        )
      : null;
    const accepted = verdict?.supported === true && verdict.sufficient;
    regenerations.push({ ...attempt, accepted });
    if (attempt.found) latest = attempt;
    if (accepted) return { node, question: first.question, ...attempt };
    rejected.push(attempt.answer || '(none)');
  }
  // None accepted: the last regeneration that found something stands; one that found nothing never
  // replaces an answer a path found (the source language's first, as Select prefers it).
  const fallback = latest ?? (first.found ? first : second.found ? second : null);
  s.detail.unaccepted =
    fallback === latest
      ? 'the last regeneration that found an answer stands'
      : fallback
        ? `no regeneration found an answer: the ${fallback === first ? first.side : second.side} path's stands`
        : 'no answer found';
  return { node, question: first.question, answer: fallback?.answer ?? '', found: fallback !== null };
}

/** a1, b1, a2, b2, …: both paths' best passages first when the budget cuts the list. */
function interleave<T>(a: readonly T[], b: readonly T[]): T[] {
  return Array.from({ length: Math.max(a.length, b.length) }, (_, i) => [a[i], b[i]])
    .flat()
    .filter((x): x is T => x !== undefined);
}

/** A sub-answer reply, or not found when the reply was unusable or empty. */
function subAnswer(value: { answer: string; found: boolean } | null): { answer: string; found: boolean } {
  const answer = value?.answer.trim() ?? '';
  return { answer, found: value !== null && value.found && answer !== '' };
}

/**
 * combine(a, v) of DaPT eq. 3: "#id" references are replaced by the answers of those sub-questions
 * (`refKey` maps a reference to its node id), and a sub-question with dependencies but no
 * reference gets their answers appended. The paper combines with the preceding node's answer; with
 * explicit edges we use the answers the node depends on, which is the same on a chain and keeps
 * unrelated answers out of independent sub-questions' queries.
 */
export function combine(
  question: string,
  dependsOn: readonly string[],
  answers: ReadonlyMap<string, string>,
  refKey: (ref: string) => string,
): string {
  let referenced = false;
  const text = question.replace(/#([\p{L}\p{N}_-]+)/gu, (m, ref: string) => {
    const answer = answers.get(refKey(ref));
    if (!answer) return m;
    referenced = true;
    return answer;
  });
  if (referenced) return text;
  const context = dependsOn.map((d) => answers.get(d)).filter((a): a is string => !!a);
  return context.length > 0 ? `${text} (${context.join('; ')})` : text;
}

/**
 * The source path's language, null for an English question with one path: the first non-English
 * language the question may be in (`QaRun.questionLanguages`, the detector's likeliest first, the
 * tie-break's pick among them), not the pick itself. The paper knows the source language; a
 * detector's or a small model's one guess would otherwise decide alone which corpus a short
 * question reads (the pick is one enum value under a grammar: "Who painted La Gioconda?" taken as
 * Italian, an Italian question as English). The final answer settles the language between the
 * detector and the pick (`finalAnswer`); the plan covers both.
 */
function sourceLanguage(run: QaRun): string | null {
  return run.questionLanguages.find((l) => !isEnglish(l)) ?? null;
}

/**
 * Whether the question as written reads as English: the first of `QaRun.questionLanguages` (the
 * detector's likeliest, or the language the final answer settled on) is, whatever the tie-break
 * picked. A tie-break that took an Italian question for English (a small model under the grammar's
 * enum) leaves it read as Italian: its unchanged "translation" is then a failed one, and its final
 * retrieval reads the chunks as written; one that took an English question for Italian leaves it
 * read as English, its translation itself.
 */
function readsAsEnglish(run: QaRun): boolean {
  return isEnglish(run.questionLanguages[0] ?? run.questionLanguage);
}

/** The two corpora of seed 002 (see kb/chunkCorpora.ts). */
type Corpus = 'original' | 'english';

/** A query retrieves from the corpus in its own language (seed 002, 2.3); for English both coincide. */
function corpusOf(language: string): Corpus {
  return isEnglish(language) ? 'english' : 'original';
}

/**
 * Passages for a query: hybrid retrieval (dense + BM25) over one corpus, shown in that corpus's
 * text: the chunks as written, or their English text. A KB without chunks (imported RDF) answers
 * from verbalised triples instead.
 */
async function passages(run: QaRun, query: string, k: number, corpus: Corpus): Promise<EvidenceItem[]> {
  const ranking = await run.retriever.hybrid(corpus === 'original' ? 'chunk_original' : 'chunk', query, k);
  const chunks = run.retriever.chunks(ranking.fused);
  if (chunks.length > 0)
    return chunks.map(({ chunk, score }) => run.retriever.chunkEvidence(chunk, score, corpus === 'english'));
  return run.retriever
    .triples((await run.retriever.hybrid('triple', query, k)).fused)
    .map(({ triple, score }) => run.retriever.tripleEvidence(triple, score));
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer, StrategyName } from '../../../src-main/engine/api/contract.js';
import { CancelledError } from '../../../src-main/engine/base/errors.js';
import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import { ask, resolveQaSettings, type QaContext } from '../../../src-main/engine/qa/index.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';
import { type CORPUS_FILES, corpusParagraphs } from '../../support/corpusScript.js';
import { indexOdyssey, prompts } from './support/odysseyKb.js';
import { NOT_IN_KB, QaEmbedder, qaRules, WIFE_OF_KING } from './support/qaScript.js';

let kb: KnowledgeBase;
let close: (() => void) | undefined;

beforeAll(async () => {
  ({ kb, close } = await indexOdyssey());
});

afterAll(() => close?.());

function context(llm: ScriptedLlm | null, overrides: Record<string, number> = {}): QaContext {
  return { kb, llm, embedder: new QaEmbedder(), prompts, settings: resolveQaSettings(overrides) };
}

/** The corpus paragraph a citation must point at: same document title and offsets. */
function paragraphOf(title: string, includes: string): { start: number; end: number } {
  const p = corpusParagraphs(title as (typeof CORPUS_FILES)[number]).find((x) => x.text.includes(includes));
  if (!p) throw new Error(`no paragraph of ${title} has "${includes}"`);
  return p;
}

/** Evidence the answer cites with [n], and every citation of it. */
function cited(answer: Answer): { evidence: Answer['evidence']; citations: Answer['evidence'][number]['citations'] } {
  const step = answer.trace.find((s) => s.step === 'answer');
  const indexes = (step?.detail as { cited: number[] }).cited;
  const evidence = indexes.map((i) => answer.evidence[i]!);
  return { evidence, citations: evidence.flatMap((e) => e.citations) };
}

const LANGS = Object.entries(WIFE_OF_KING) as [keyof typeof WIFE_OF_KING, string][];

describe.each(['dr', 'hyp', 'dapt'] as StrategyName[])('%s answers "wife of the king of Ithaca"', (strategy) => {
  it.each(LANGS)('in %s, with Penelope, in that language, citing the right passages', async (lang, question) => {
    const llm = new ScriptedLlm(qaRules());
    const streamed: string[] = [];
    const answer = await ask(context(llm), question, { strategy, onTextChunk: (t) => streamed.push(t) });

    expect(answer.questionLanguage).toBe(lang);
    expect(answer.answerLanguage).toBe(lang);
    expect(answer.strategy).toBe(strategy);
    expect(answer.retrievalOnly).toBe(false);
    expect(answer.text).toMatch(/Penelope \[\d+\]/);
    // The bare answer comes from the same grammar-constrained call as the explained one.
    expect(answer.shortAnswer).toBe('Penelope');
    // Streamed as the model wrote it: the explained answer, a few tokens at a time.
    expect(streamed.length).toBeGreaterThan(1);
    expect(streamed.join('')).toBe(answer.text);
    const finalCall = llm.calls.at(-1)!;
    expect(finalCall.kind).toBe('json');
    expect(finalCall.prompt.variables.language).toBe(new Intl.DisplayNames(['en'], { type: 'language' }).of(lang));
    if (lang !== 'en') expect(llm.callsOf('qa/translate')).toHaveLength(1);

    // The cited evidence says who was king and whose wife Penelope was, and its citations open
    // the source paragraphs at their exact offsets.
    const { evidence, citations } = cited(answer);
    expect(evidence.length).toBeGreaterThan(0);
    expect(citations.length).toBeGreaterThan(0);
    for (const c of citations) {
      const chunk = kb.documents.getChunk(c.chunkId)!;
      expect(c).toMatchObject({
        documentId: chunk.documentId,
        startOffset: chunk.startOffset,
        endOffset: chunk.endOffset,
        page: null,
      });
      expect(c.documentTitle).toBe(kb.documents.getDocument(chunk.documentId)!.title);
    }
    const king = paragraphOf('odysseus.en.md', 'king of Ithaca');
    const italianKing = paragraphOf('ulisse.it.txt', 're di Itaca');
    const wife = paragraphOf('ulisse.it.txt', 'la moglie di Ulisse');
    const spans = citations.map((c) => `${c.documentTitle}:${c.startOffset}-${c.endOffset}`);
    expect(
      spans.some(
        (s) =>
          s === `odysseus.en.md:${king.start}-${king.end}` ||
          s === `ulisse.it.txt:${italianKing.start}-${italianKing.end}`,
      ),
    ).toBe(true);
    expect(
      spans.some(
        (s) => s === `odysseus.en.md:${king.start}-${king.end}` || s === `ulisse.it.txt:${wife.start}-${wife.end}`,
      ),
    ).toBe(true);

    // The trace accounts for every LLM call.
    expect(answer.usage.llmCalls).toBe(llm.calls.length);
    expect(answer.trace.reduce((n, s) => n + s.llmCalls, 0)).toBe(llm.calls.length);
    expect(answer.usage.promptTokens).toBe(answer.trace.reduce((n, s) => n + s.promptTokens, 0));
  });

  it('says so when the answer is not in the knowledge base', async () => {
    const llm = new ScriptedLlm(qaRules());
    const answer = await ask(context(llm), NOT_IN_KB, { strategy });
    expect(answer.text).toMatch(/does not contain the answer/);
    expect(answer.text).not.toMatch(/Penelope \[/);
    expect(answer.shortAnswer).toBe('');
  });
});

describe('dr', () => {
  it('resolves the placeholders in order, anchored on the known entity, and tops up by similarity', async () => {
    const llm = new ScriptedLlm(qaRules());
    const answer = await ask(context(llm), WIFE_OF_KING.en, { strategy: 'dr' });
    const resolves = answer.trace.filter((s) => s.step === 'resolve').map((s) => s.detail as Record<string, unknown>);
    expect(resolves.map((r) => [r.anchor, r.placeholder, r.value])).toEqual([
      ['Ithaca', '?X', 'Odysseus'],
      ['Odysseus', '?Y', 'Penelope'],
    ]);
    expect((resolves[0]!.candidates as { name: string }[])[0]!.name).toBe('Ithaca');
    expect((resolves[0]!.candidates as unknown[]).length).toBeLessThanOrEqual(5);
    // The second call sees the first resolution propagated.
    expect(llm.callsOf('qa/dr-resolve')[1]!.prompt.variables.triples).toContain('Odysseus HAS_WIFE ?Y');
    const topUp = answer.trace.find((s) => s.step === 'similarity top-up')!.detail as {
      kept: unknown[];
      added: unknown[];
    };
    expect(topUp.kept.length).toBeGreaterThan(0);
    expect(answer.evidence.every((e) => e.kind === 'summary')).toBe(true);
  });

  it('caps the accumulated summaries and the top-up', async () => {
    const llm = new ScriptedLlm(qaRules());
    const answer = await ask(context(llm, { 'dr.summaryCap': 1, 'dr.similarityTopUp': 2 }), WIFE_OF_KING.en, {
      strategy: 'dr',
    });
    const topUp = answer.trace.find((s) => s.step === 'similarity top-up')!.detail as {
      kept: unknown[];
      added: unknown[];
      droppedByCap: unknown[];
    };
    expect(topUp.kept).toHaveLength(1);
    expect(topUp.droppedByCap.length).toBeGreaterThan(0);
    expect(topUp.added.length).toBeLessThanOrEqual(2);
    expect(answer.evidence.length).toBe(topUp.kept.length + topUp.added.length);
  });

  it('falls back to the similarity top-up when decomposition fails or yields nothing', async () => {
    const broken = new ScriptedLlm([{ prompt: 'qa/dr-decompose', reply: () => ({ wrong: true }) }, ...qaRules()]);
    const answer = await ask(context(broken), WIFE_OF_KING.en, { strategy: 'dr' });
    const decompose = answer.trace.find((s) => s.step === 'decompose')!.detail as {
      invalid?: { prompt: string; message: string }[];
      triples: unknown[];
    };
    expect(decompose.invalid?.[0]?.message).toMatch(/schema/);
    expect(decompose.triples).toEqual([]);
    expect(answer.trace.some((s) => s.step === 'resolve')).toBe(false);
    expect(answer.evidence.length).toBeGreaterThan(0);
    expect(answer.evidence.length).toBeLessThanOrEqual(10);

    const single = await ask(context(new ScriptedLlm(qaRules())), 'Odysseus', { strategy: 'dr' });
    expect((single.trace.find((s) => s.step === 'decompose')!.detail as { triples: unknown[] }).triples).toEqual([]);
    // The top-up is the ten entity summaries nearest the question, computed here from the stored
    // summaries (on a crowded embedder a bare name is not nearest its own long summary).
    const entities = [...kb.graph.iterateEntities()].filter((e) => e.summary);
    const [q] = await new QaEmbedder().embed(['Odysseus'], { purpose: 'query' });
    const vectors = await new QaEmbedder().embed(entities.map((e) => e.summary!));
    const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
    const nearest = entities
      .map((e, i) => ({ label: `${e.name} (${e.type})`, score: cos(q!, vectors[i]!) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 10);
    expect(single.evidence.map((e) => e.label)).toEqual(nearest.map((e) => e.label));
    expect(single.evidence.map((e) => e.label)).toContain('Odysseus (Person)');
  });
});

describe('hyp', () => {
  it('judges candidates and keeps only those reaching the threshold', async () => {
    const llm = new ScriptedLlm(qaRules());
    const answer = await ask(context(llm), WIFE_OF_KING.en, { strategy: 'hyp' });
    const judge = answer.trace.find((s) => s.step === 'judge')!.detail as {
      scores: { total: number; kept: boolean }[];
      kept: number;
      dropped: number;
    };
    expect(judge.dropped).toBeGreaterThan(0);
    expect(judge.scores.filter((s) => s.kept).every((s) => s.total >= 3)).toBe(true);
    expect(answer.evidence).toHaveLength(judge.kept);
    expect(answer.evidence.every((e) => e.kind === 'triple')).toBe(true);
    // MDER descriptions travel with the kept triples.
    expect(answer.evidence.some((e) => e.text.includes('Odysseus was the king of Ithaca'))).toBe(true);
    const verbalised = (answer.trace.find((s) => s.step === 'hypothetical paths')!.detail as { verbalised: string[] })
      .verbalised;
    expect(verbalised).toContain('Person king of Ithaca');
  });
});

describe('dapt', () => {
  it('fuses the Italian and English graphs into bilingual nodes and solves them in order', async () => {
    const llm = new ScriptedLlm(qaRules());
    const answer = await ask(context(llm), WIFE_OF_KING.it, { strategy: 'dapt' });
    const fuse = answer.trace.find((s) => s.step === 'fuse')!.detail as {
      fusions: unknown[];
      order: { id: string; source: string | null; english: string | null }[];
      similarity: number[][];
      tau: number;
    };
    // A sub-question and its translation are close, not one point (≈ 0.86), and the other hop's
    // pair is within 0.1 of them (≈ 0.75): τ decides, not the embedder.
    const [[king, kingToWife], [wifeToKing, wife]] = fuse.similarity as [[number, number], [number, number]];
    for (const same of [king, wife]) {
      expect(same).toBeGreaterThanOrEqual(fuse.tau);
      expect(same).toBeLessThan(0.95);
    }
    for (const other of [kingToWife, wifeToKing]) {
      expect(other).toBeLessThan(fuse.tau);
      expect(other).toBeGreaterThan(0.7);
    }
    expect(fuse.fusions).toHaveLength(2);
    expect(fuse.order.map((n) => [n.id, n.source !== null, n.english !== null])).toEqual([
      ['s:1', true, true],
      ['s:2', true, true],
    ]);
    const solves = answer.trace
      .filter((s) => s.step.startsWith('solve'))
      .map((s) => s.detail as { attempts: { side: string; query: string }[] });
    expect(solves[1]!.attempts.map((a) => a.query)).toEqual([
      'Chi era la moglie di Ulisse?',
      'Who was the wife of Ulisse?',
    ]);
    expect(llm.callsOf('qa/dapt-judge')).toHaveLength(2);
  });

  it("answers in the language asked for, whatever the question's", async () => {
    const llm = new ScriptedLlm(qaRules());
    const answer = await ask(context(llm), WIFE_OF_KING.es, { strategy: 'dapt', answerLanguage: 'en' });
    expect([answer.questionLanguage, answer.answerLanguage]).toEqual(['es', 'en']);
    expect(llm.calls.at(-1)!.prompt.variables.language).toBe('English');
    expect(answer.text).toMatch(/^The wife of the king of Ithaca was Penelope/);
  });

  it('keeps one graph for an English question', async () => {
    const llm = new ScriptedLlm(qaRules());
    await ask(context(llm), WIFE_OF_KING.en, { strategy: 'dapt' });
    expect(llm.callsOf('qa/dapt-decompose')).toHaveLength(1);
    expect(llm.callsOf('qa/dapt-judge')).toHaveLength(0);
  });
});

describe('baselines, retrieval-only and cancellation', () => {
  it('vector answers from the top chunks; llm-only from the model alone', async () => {
    const vector = await ask(context(new ScriptedLlm(qaRules())), WIFE_OF_KING.en, { strategy: 'vector' });
    expect(vector.evidence.every((e) => e.kind === 'chunk' && e.citations.length === 1)).toBe(true);
    expect(vector.evidence.length).toBeLessThanOrEqual(10);
    const alone = await ask(context(new ScriptedLlm(qaRules())), WIFE_OF_KING.it, { strategy: 'llm-only' });
    expect(alone.evidence).toEqual([]);
    expect(alone.text).toMatch(/^\(Italian\)/);
    expect(alone.shortAnswer).toBe('Penelope');
  });

  it('a final reply cut by the token budget keeps the answer it wrote and gives no short answer', async () => {
    // As a model stopped at maxTokens: the JSON string of the explained answer never closes.
    const cut = new ScriptedLlm([
      {
        prompt: 'qa/answer',
        reply: () => '{"answer": "The wife of the king of Ithaca was Penelope [1], the daughter of Icar',
      },
      ...qaRules(),
    ]);
    const answer = await ask(context(cut), WIFE_OF_KING.en, { strategy: 'vector' });
    expect(answer.text).toBe('The wife of the king of Ithaca was Penelope [1], the daughter of Icar');
    expect(answer.shortAnswer).toBe('');
    expect(
      (answer.trace.find((s) => s.step === 'answer')?.detail as { invalid?: unknown } | undefined)?.invalid,
    ).toEqual([expect.objectContaining({ prompt: 'qa/answer' })]);
    // The cut call's tokens are in the trace, as any call's.
    expect(answer.usage.llmCalls).toBe(cut.calls.length);
    expect(answer.usage.completionTokens).toBeGreaterThan(0);
    // A short answer written before the cut is kept.
    const late = new ScriptedLlm([
      { prompt: 'qa/answer', reply: () => '{"short": "Penelope", "answer": "It was Pen\\u00e9' },
      ...qaRules(),
    ]);
    const second = await ask(context(late), WIFE_OF_KING.en, { strategy: 'vector' });
    expect(second).toMatchObject({ text: 'It was Pené', shortAnswer: 'Penelope' });
  });

  it('ranks evidence with citations and no model when none is loaded', async () => {
    const answer = await ask(context(null), WIFE_OF_KING.en, { strategy: 'dr' });
    expect(answer.retrievalOnly).toBe(true);
    expect(answer.usage.llmCalls).toBe(0);
    expect(answer.text).toMatch(/^Retrieval only/);
    expect(answer.shortAnswer).toBeUndefined();
    expect(answer.evidence.length).toBeGreaterThan(0);
    expect(answer.evidence.length).toBeLessThanOrEqual(10);
    expect(answer.evidence.some((e) => e.citations.length > 0)).toBe(true);
    const scores = answer.evidence.map((e) => e.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('stops with CancelledError when the signal fires', async () => {
    const controller = new AbortController();
    const llm = new ScriptedLlm([
      { prompt: 'qa/dr-decompose', reply: () => (controller.abort(), { triples: [] }) },
      ...qaRules(),
    ]);
    await expect(
      ask(context(llm), WIFE_OF_KING.en, { strategy: 'dr', signal: controller.signal }),
    ).rejects.toBeInstanceOf(CancelledError);
  });
});

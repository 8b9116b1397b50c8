import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import { verbaliseTriple } from '../../../src-main/engine/kb/verbaliseTriple.js';
import { judgeSchema } from '../../../src-main/engine/qa/hyp/HypStrategy.js';
import { ask, resolveQaSettings } from '../../../src-main/engine/qa/index.js';
import { ScriptedLlm, type ScriptRule } from '../../support/ScriptedLlm.js';
import { indexOdyssey, prompts } from './support/odysseyKb.js';
import { QaEmbedder, qaRules, WIFE_OF_KING } from './support/qaScript.js';

let kb: KnowledgeBase;
let close: (() => void) | undefined;
beforeAll(async () => {
  ({ kb, close } = await indexOdyssey());
});
afterAll(() => close?.());

interface JudgeDetail {
  rounds: number[];
  scores: { id: number; triple: string; total: number | null; unjudged: string | false; kept: boolean }[];
}

/** `[n] text` blocks of the judge's candidates variable. */
const numbered = (text: string): { n: number; text: string }[] =>
  [...text.matchAll(/^\[(\d+)\] (.*)$/gmu)].map((m) => ({ n: Number(m[1]), text: m[2]! }));
const relevant = (text: string): boolean => /king of ithaca|married to|husband of|wife of/i.test(text);

describe('hyp with a small model', () => {
  it('asks again for the candidates a judge reply skipped, and matches scores by id however they are ordered or repeated', async () => {
    const seen = new Set<string>();
    // First sight of a batch: every third candidate skipped, the rest in reverse order, the first repeated with another score.
    const sloppy: ScriptRule = {
      prompt: 'qa/hyp-judge',
      reply: (v) => {
        const items = numbered(v.candidates!);
        const scores = items
          .filter((b, i) => seen.has(b.text) || i % 3 !== 2)
          .map((b) =>
            relevant(b.text)
              ? { id: b.n, directness: 2, entityClarity: 2, contextRelevance: 2 }
              : { id: b.n, directness: 0, entityClarity: 1, contextRelevance: 0 },
          )
          .reverse();
        if (scores.length > 0)
          scores.push({
            ...scores.at(-1)!,
            directness: relevant(items[0]!.text) ? 0 : 2,
            contextRelevance: relevant(items[0]!.text) ? 0 : 2,
          });
        for (const b of items) seen.add(b.text);
        return { scores };
      },
    };
    const llm = new ScriptedLlm([sloppy, ...qaRules()]);
    const answer = await ask(
      { kb, llm, embedder: new QaEmbedder(), prompts, settings: resolveQaSettings({ 'hyp.judgeBatchSize': 4 }) },
      WIFE_OF_KING.en,
      { strategy: 'hyp' },
    );
    const judge = answer.trace.find((s) => s.step === 'judge')!.detail as JudgeDetail;
    expect(judge.rounds.length).toBe(2);
    expect(judge.rounds[1]).toBeGreaterThan(0);
    expect(judge.scores.every((s) => s.total !== null && s.unjudged === false)).toBe(true);
    // Each score is the one its own candidate earned: kept exactly when relevant.
    for (const s of judge.scores) {
      const t = kb.graph.getTriples([s.id])[0]!;
      const earned = relevant(`${s.triple}. ${t.description ?? ''}`) ? 6 : 1;
      expect([s.triple, s.total, s.kept]).toEqual([s.triple, earned, earned >= 3]);
    }
    expect(judge.scores.filter((s) => s.kept).length).toBeGreaterThan(0);
    expect(answer.text).toMatch(/Penelope \[\d+\]/);
  });

  it('keeps a candidate the judge never scores, saying why, rather than dropping it', async () => {
    const silent: ScriptRule = { prompt: 'qa/hyp-judge', reply: () => ({ scores: [] }) };
    const llm = new ScriptedLlm([silent, ...qaRules()]);
    const answer = await ask(
      { kb, llm, embedder: new QaEmbedder(), prompts, settings: resolveQaSettings() },
      WIFE_OF_KING.en,
      { strategy: 'hyp' },
    );
    const judge = answer.trace.find((s) => s.step === 'judge')!.detail as JudgeDetail;
    expect(judge.rounds.length).toBe(3);
    expect(judge.scores.length).toBeGreaterThan(0);
    expect(judge.scores.every((s) => s.kept && s.unjudged === 'not scored after 3 asks')).toBe(true);
  });

  it('keeps the candidates of a judge reply that fails its schema, saying so', async () => {
    const broken: ScriptRule = { prompt: 'qa/hyp-judge', reply: () => ({ scores: 'all fine' }) };
    const llm = new ScriptedLlm([broken, ...qaRules()]);
    const answer = await ask(
      { kb, llm, embedder: new QaEmbedder(), prompts, settings: resolveQaSettings() },
      WIFE_OF_KING.en,
      { strategy: 'hyp' },
    );
    const judge = answer.trace.find((s) => s.step === 'judge')!.detail as JudgeDetail;
    expect(judge.scores.length).toBeGreaterThan(0);
    expect(judge.scores.every((s) => s.kept && s.unjudged === 'reply failed its schema')).toBe(true);
  });

  it('lets the judge name only the candidates of its batch', () => {
    const ok = { directness: 1, entityClarity: 2, contextRelevance: 1 };
    expect(judgeSchema(3).safeParse({ scores: [{ id: 3, ...ok }] }).success).toBe(true);
    expect(judgeSchema(3).safeParse({ scores: [{ id: 4, ...ok }] }).success).toBe(false);
  });

  it('indexes triples by their linear verbalisation; the MDER description stays in the evidence', async () => {
    const triple = kb.graph
      .getTriples(Array.from({ length: kb.graph.countTriples() + 50 }, (_, i) => i + 1))
      .find((t) => t.description && /\b(?:Odysseus|Ulysses)\b/.test(t.sourceName))!;
    const fact = verbaliseTriple(triple.sourceName, triple.relation, triple.targetName);
    const descriptionOnly = triple
      .description!.split(/\W+/u)
      .filter((w) => w.length > 4 && !fact.toLowerCase().includes(w.toLowerCase()));
    expect(descriptionOnly.length).toBeGreaterThan(0);
    for (const word of descriptionOnly)
      expect(kb.textIndex.bm25('triple', word, 50).map((h) => h.id)).not.toContain(triple.id);
    const llm = new ScriptedLlm(qaRules());
    const answer = await ask(
      { kb, llm, embedder: new QaEmbedder(), prompts, settings: resolveQaSettings() },
      WIFE_OF_KING.en,
      { strategy: 'hyp' },
    );
    expect(
      answer.evidence.some(
        (e) => e.kind === 'triple' && e.text.startsWith(`${e.label}. `) && e.text.length > e.label.length + 2,
      ),
    ).toBe(true);
  });
});

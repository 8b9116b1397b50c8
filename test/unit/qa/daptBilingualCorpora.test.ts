import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from '../../../src-main/engine/api/contract.js';
import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import { ask, resolveQaSettings, type QaContext } from '../../../src-main/engine/qa/index.js';
import { Retriever } from '../../../src-main/engine/qa/retrieval/Retriever.js';
import type { Llm } from '../../../src-main/engine/models/Llm.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';
import { UncooperativeLlm } from '../../support/UncooperativeLlm.js';
import { buildItacaKb, itacaRules as rules, QUESTION, WEAVING } from './support/itacaCorpus.js';
import { prompts } from './support/odysseyKb.js';

/** Seed 002, 2.3: each sub-question retrieves from the corpus in its language (see support/itacaCorpus.ts). */
let dir: string;
let kb: KnowledgeBase;
let weavingChunk: number;
const embedder = new NgramEmbedder(512);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'polyhop-dapt-corpora-'));
  ({ kb, weavingChunk } = await buildItacaKb(join(dir, 'kb.sqlite'), embedder));
});
afterAll(() => {
  kb.close();
  rmSync(dir, { recursive: true, force: true });
});

// The n-gram embedder is not multilingual: a question and its translation are far apart under it,
// where a multilingual one fuses them (τ is a setting); a low τ makes the one bilingual node here.
const SEEDS = Array.from({ length: 40 }, (_, i) => i + 1);
const settings = resolveQaSettings({ 'dapt.tau': 0.05 });

function run(llm: Llm, question = QUESTION.it): Promise<Answer> {
  const ctx: QaContext = { kb, llm, embedder, prompts, settings };
  return ask(ctx, question, { strategy: 'dapt' });
}

interface Attempt {
  side: string;
  corpus: string;
  query: string;
  passages: { id: number; label: string }[];
}
const attemptsOf = (a: Answer): Attempt[] =>
  a.trace.filter((s) => s.step.startsWith('solve')).flatMap((s) => (s.detail as { attempts: Attempt[] }).attempts);

describe('DaPT retrieves from the corpus in each sub-question’s language', () => {
  it('the Italian chunk reaches the Italian sub-question only through the text as written', async () => {
    const retriever = new Retriever(kb, embedder, settings.shared.rrfK);
    const k = settings.dapt.retrievalK;
    const ids = (r: { fused: { id: number }[] }): number[] => r.fused.map((x) => x.id);
    // The realistic premise: in the English corpus the Italian wording finds other chunks.
    expect(ids(await retriever.hybrid('chunk', QUESTION.it, k))).not.toContain(weavingChunk);
    expect(ids(await retriever.hybrid('chunk_original', QUESTION.it, k))).toContain(weavingChunk);
    expect(ids(await retriever.hybrid('chunk', QUESTION.en, k))).toContain(weavingChunk);
  });

  it('a bilingual node has two lists, each from its own corpus, shown in its own language', async () => {
    const llm = new ScriptedLlm(rules());
    const answer = await run(llm);
    const [source, english] = attemptsOf(answer);
    expect(source).toMatchObject({ side: 'source', corpus: 'original', query: QUESTION.it });
    expect(english).toMatchObject({ side: 'english', corpus: 'english', query: QUESTION.en });
    expect(source!.passages.map((p) => p.id)).toContain(weavingChunk);
    expect(english!.passages.map((p) => p.id)).toContain(weavingChunk);
    // What the model read on each path: the chunk as written, and its English text.
    const shown = (q: string): string =>
      llm.callsOf('qa/dapt-subanswer').find((c) => c.prompt.variables.subQuestion!.includes(q))!.prompt.variables
        .passages!;
    expect(shown(QUESTION.it)).toContain(WEAVING.it);
    expect(shown(QUESTION.it)).not.toContain(WEAVING.en);
    expect(shown(QUESTION.en)).toContain(WEAVING.en);
    expect(shown(QUESTION.en)).not.toContain(WEAVING.it);
    expect(answer.trace.find((s) => s.step === 'plan')!.detail).not.toHaveProperty('originalCorpus');
    expect(answer.shortAnswer).toBe('Penelope');
  });

  it('an English question reads one corpus, the English one', async () => {
    const llm = new ScriptedLlm(rules());
    const answer = await run(llm, QUESTION.en);
    const attempts = attemptsOf(answer);
    expect(attempts.map((a) => a.corpus)).toEqual(['english']);
    expect(attempts[0]!.passages.map((p) => p.id)).toContain(weavingChunk);
    expect(llm.callsOf('qa/dapt-subanswer')[0]!.prompt.variables.passages).toContain(WEAVING.en);
  });

  it('a model that does not cooperate, in any step, still sees the Italian chunk in Italian and the English text in English', async () => {
    // Every step degrades, planning and translation included (a failed or untranslated
    // translation, sub-questions with reasoning, citations or repetition in them, dropped nodes).
    let bilingual = 0;
    let untranslated = 0;
    for (const seed of SEEDS) {
      // As an endpoint that ignores the schema. Under a grammar (the local runtime) the model's
      // tie-break of the question's language can be a wrong candidate (seed 1: 'en' for this
      // Italian question, which tinyld reads as it 0.25 / en 0.15), and DaPT then plans one English
      // graph over the English corpus: open product work (issue 21, point 7), not this test's.
      const llm = new UncooperativeLlm(new ScriptedLlm(rules()), { seed, schema: 'ignored' });
      const answer = await run(llm);
      const [source, english] = attemptsOf(answer);
      expect(answer.text.length, `seed ${seed}`).toBeGreaterThan(0);
      expect(source, `seed ${seed}`).toMatchObject({ side: 'source', corpus: 'original' });
      expect(
        source!.passages.map((p) => p.id),
        `seed ${seed}`,
      ).toContain(weavingChunk);
      const plan = answer.trace.find((s) => s.step === 'plan')!.detail as { untranslated?: string };
      if (english) {
        // An English path exists only for a real translation, and it finds the chunk's English text.
        expect(plan.untranslated, `seed ${seed}`).toBeUndefined();
        expect(english, `seed ${seed}`).toMatchObject({ side: 'english', corpus: 'english' });
        expect(english.query, `seed ${seed}`).not.toContain(QUESTION.it.replace(/\?$/, ''));
        expect(
          english.passages.map((p) => p.id),
          `seed ${seed}`,
        ).toContain(weavingChunk);
        bilingual++;
      } else {
        // No translation to plan from: recorded, and the translation step shows why.
        expect(plan.untranslated, `seed ${seed}`).toMatch(/no English graph/);
        const translate = answer.trace.find((s) => s.step === 'translate')!.detail as { english: string };
        expect(translate.english.trim(), `seed ${seed}`).toBe(QUESTION.it);
        untranslated++;
      }
    }
    // Both paths are exercised at these seeds: most translate, some do not.
    expect(bilingual).toBeGreaterThan(untranslated);
    expect(untranslated).toBeGreaterThan(0);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import type { EmbedOptions } from '../../../src-main/engine/models/Embedder.js';
import { ask, resolveQaSettings } from '../../../src-main/engine/qa/index.js';
import { Retriever } from '../../../src-main/engine/qa/retrieval/Retriever.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';
import { indexOdyssey, prompts } from './support/odysseyKb.js';
import { QaEmbedder, qaRules } from './support/qaScript.js';

let kb: KnowledgeBase;
let close: (() => void) | undefined;
beforeAll(async () => {
  ({ kb, close } = await indexOdyssey());
});
afterAll(() => close?.());

/**
 * A query embedder that has not learnt the question's words, as a small embedding model meets rare
 * names, codes and old spellings: every question lands where an unrelated sentence does, so dense
 * similarity ranks the KB without regard to it. Passages are embedded as the KB's were.
 */
class UnlearntWordsEmbedder extends QaEmbedder {
  override embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]> {
    const query = options?.purpose === 'query';
    return super.embed(
      query ? texts.map(() => 'Telemachus searched for his father in Pylos and in Sparta') : texts,
      options,
    );
  }
}

const K = 3;
const POSEIDON = /Poseidon/;
const ICARIUS = /Icari/;

describe('BM25 finds what dense similarity misses (hybrid fusion)', () => {
  it.each([
    ['chunk', 'Which god was angry?', POSEIDON],
    ['triple', 'Which god was angry?', POSEIDON],
    ['triple', 'Who was the daughter of Icarius?', ICARIUS],
  ] as const)('%s: "%s" finds its only lexical match in the fused top k', async (kind, question, match) => {
    const r = new Retriever(kb, new UnlearntWordsEmbedder(), 60);
    const texts = async (ids: readonly { id: number }[]): Promise<string[]> =>
      kind === 'chunk'
        ? r.chunks(ids.map((x) => ({ ...x, score: 0 }))).map(({ chunk }) => chunk.text)
        : r.triples(ids.map((x) => ({ ...x, score: 0 }))).map(({ triple }) => r.tripleEvidence(triple, 0).text);
    // Dense similarity alone misses it (the premise), the fused ranking has it.
    expect((await texts(await r.knn(kind, question, K))).some((t) => match.test(t))).toBe(false);
    expect((await texts((await r.hybrid(kind, question, K)).fused)).some((t) => match.test(t))).toBe(true);
  });

  it('hyp keeps the triple only BM25 finds among its candidates', async () => {
    // Its two hypothetical triples ("Penelope daughter of Person", "Person mother of Penelope") get the
    // same dense neighbours, so those lead the fusion; room for twice as many lets BM25's in.
    const answer = await ask(
      {
        kb,
        llm: new ScriptedLlm(qaRules()),
        embedder: new UnlearntWordsEmbedder(),
        prompts,
        settings: resolveQaSettings({ 'hyp.perTripleK': K, 'hyp.maxCandidates': 2 * K }),
      },
      'Who was the daughter of Icarius?',
      { strategy: 'hyp' },
    );
    const step = answer.trace.find((s) => s.step === 'retrieve triples')!;
    const candidates = (step.detail as { candidates: { triple: string }[] }).candidates.map((c) => c.triple);
    expect(candidates).toHaveLength(2 * K);
    expect(
      candidates.some((t) => ICARIUS.test(t)),
      candidates.join(' | '),
    ).toBe(true);
  });
});

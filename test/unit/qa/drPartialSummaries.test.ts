import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import { IndexingJob } from '../../../src-main/engine/mder/IndexingJob.js';
import { ask, resolveQaSettings } from '../../../src-main/engine/qa/index.js';
import { Retriever } from '../../../src-main/engine/qa/retrieval/Retriever.js';
import { ScriptedLlm, type ScriptRule } from '../../support/ScriptedLlm.js';
import { addCorpusDocument, CORPUS_FILES, corpusRules, reduceBlocks } from '../../support/corpusScript.js';
import { prompts } from './support/odysseyKb.js';
import { QaEmbedder, qaRules, WIFE_OF_KING } from './support/qaScript.js';

/**
 * A hub entity's capped summary loses facts: Reduce summarises Odysseus (a hub once its input
 * budget is small) in groups of facts, and the model that combines the partial summaries keeps the
 * gist of each, as a model writing a bounded summary of many facts does. That Odysseus was
 * Penelope's husband is then only in a partial summary; DR must still find it.
 */

const firstSentence = (text: string): string => /^.*?[.!?](?=\s|$)/su.exec(text)?.[0] ?? text;

/** Partials keep every fact they are shown; a summary of partial summaries keeps the first sentence of each. */
const gistReduce: ScriptRule = {
  prompt: 'mder/reduce',
  when: (v) => /partial summaries/.test(v.entities!),
  reply: (v) => ({
    summaries: reduceBlocks(v.entities!).map((b) => ({
      id: b.id,
      name: b.name,
      summary: b.part ? b.facts.map(firstSentence).join(' ') : `${b.name} (${b.type}): ${firstSentence(b.facts[0]!)}`,
    })),
  }),
};

let dir: string;
let kb: KnowledgeBase;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'polyhop-partials-'));
  kb = KnowledgeBase.open(join(dir, 'kb.sqlite'), { create: { name: 'odyssey', baseIri: 'https://example.org/o/' } });
  for (const file of CORPUS_FILES) addCorpusDocument(kb, file);
  const result = await new IndexingJob(kb, new ScriptedLlm([gistReduce, ...corpusRules()]), {
    prompts,
    embedder: new QaEmbedder(),
    reduce: { maxInputTokens: 40 },
  }).run();
  expect(result.failures).toEqual([]);
});
afterAll(() => {
  kb.close();
  rmSync(dir, { recursive: true, force: true });
});

const HUSBAND = /husband of Penelope|Penelope was the wife of Odysseus/;

describe('dr: a hub entity’s partial summaries', () => {
  it('keeps the partial summaries Reduce wrote, embedded, and the fact only they hold', () => {
    const odysseus = kb.graph.findEntityByName('Odysseus')!;
    const partials = kb.partialSummaries.ofEntity(odysseus.id);
    expect(partials.length).toBeGreaterThan(1);
    expect(odysseus.summary).not.toMatch(HUSBAND);
    expect(partials.some((p) => HUSBAND.test(p.text))).toBe(true);
    expect(kb.vectors.countMissingVectors('entity_partial')).toBe(0);
  });

  it('answers from the partial summary the capped summary left out', async () => {
    const llm = new ScriptedLlm(qaRules());
    const settings = resolveQaSettings({ 'dr.similarityTopUp': 0 });
    const answer = await ask({ kb, llm, embedder: new QaEmbedder(), prompts, settings }, WIFE_OF_KING.en, {
      strategy: 'dr',
    });
    expect(answer.text).toMatch(/Penelope \[\d+\]/);
    const hop = answer.trace.filter((s) => s.step === 'resolve')[1]!.detail as { added: string[] };
    // A partial that holds the fact (fact ranges depend on how the tokenizer groups the facts).
    const holders = kb.partialSummaries
      .ofEntity(kb.graph.findEntityByName('Odysseus')!.id)
      .filter((p) => HUSBAND.test(p.text))
      .map((p) => `Odysseus (Person), facts ${p.firstFact}–${p.lastFact} of ${p.factCount}`);
    expect(hop.added.some((label) => holders.includes(label))).toBe(true);
  });

  it('anchors a hub on its partial summary nearest all the known triples, read word by word', async () => {
    // Two triples without a placeholder, the first ending and the next opening with a name: run
    // together ("TelemachusPenelope") neither name is read, and Odysseus's partial about Laertes
    // and Troy is the nearest.
    const decomposition: ScriptRule = {
      prompt: 'qa/dr-decompose',
      reply: () => ({
        triples: [
          { subject: 'Odysseus', relation: 'FATHER_OF', object: 'Telemachus' },
          { subject: 'Penelope', relation: 'MARRIED_TO', object: 'Odysseus' },
        ],
      }),
    };
    const llm = new ScriptedLlm([decomposition, ...qaRules()]);
    const settings = resolveQaSettings({ 'dr.similarityTopUp': 0 });
    const answer = await ask(
      { kb, llm, embedder: new QaEmbedder(), prompts, settings },
      'Was Penelope married to the father of Telemachus?',
      { strategy: 'dr' },
    );
    const partials = answer.evidence.filter((e) => e.label.startsWith('Odysseus (Person), facts '));
    expect(partials).toHaveLength(1);
    expect(partials[0]!.text).toMatch(/Telemachus/);
    expect(partials[0]!.text).toMatch(/Penelope/);
  });

  it('tops up the evidence with partial summaries by similarity to the question, standing for their entity', async () => {
    // No decomposition for this question: the similarity top-up alone finds the evidence.
    const llm = new ScriptedLlm(qaRules());
    const answer = await ask(
      { kb, llm, embedder: new QaEmbedder(), prompts, settings: resolveQaSettings({ 'dr.similarityTopUp': 3 }) },
      'Odysseus was the husband of whom?',
      { strategy: 'dr' },
    );
    const topUp = answer.trace.find((s) => s.step === 'similarity top-up')!.detail as { added: { label: string }[] };
    const partial = topUp.added.find((a) => a.label.startsWith('Odysseus (Person), facts '));
    expect(partial).toBeDefined();
    expect(answer.evidence.find((e) => e.label === partial!.label)!.text).toMatch(HUSBAND);
  });

  it('each partial summary cites the chunks of the facts it summarises, not every chunk of its entity', () => {
    const odysseus = kb.graph.findEntityByName('Odysseus')!;
    const triples = kb.graph.triplesOfEntity(odysseus.id, 'both', 10_000);
    const retriever = new Retriever(kb, new QaEmbedder(), resolveQaSettings().shared.rrfK);
    const entityChunks = new Set(retriever.summaryEvidence(odysseus, 1).chunkIds);
    let narrower = 0;
    for (const partial of kb.partialSummaries.ofEntity(odysseus.id)) {
      const cited = retriever.partialEvidence(partial, odysseus, 1).chunkIds;
      // The script's partials keep each fact's first sentence: the facts a partial holds are the triples whose description it repeats.
      const held = triples.filter((t) => t.description !== null && partial.text.includes(firstSentence(t.description)));
      expect(held.length, partial.text).toBeGreaterThan(0);
      expect(new Set(cited)).toEqual(new Set(held.flatMap((t) => t.chunkIds)));
      if (cited.length < entityChunks.size) narrower++;
    }
    expect(narrower).toBeGreaterThan(0);
  });
});

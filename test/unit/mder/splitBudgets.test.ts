import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { IndexingJob } from '../../../src-main/engine/mder/IndexingJob.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';
import { UncooperativeLlm } from '../../support/UncooperativeLlm.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';
import { addPassageDocument } from '../../support/passageDocument.js';
import { NO_MERGES_RULE, reduceBlocks } from '../../support/corpusScript.js';
import { openKb, prompts } from './support/corpusKb.js';
import { harbourRules } from './support/harbourRules.js';

const dir = mkdtempSync(join(tmpdir(), 'polyhop-split-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Two full sentences per fact, as a real model describes a triple with its context (~80 tokens). */
const description = (k: number): string =>
  `Odysseus landed at Harbour ${k} on the ${k}th stage of his long voyage home from Troy, after a storm sent by Poseidon had driven his ships off course for many days and nights. ` +
  `At Harbour ${k} he traded bronze and wine with the local people, rested his exhausted crew for a while, and asked the elders which route would lead him back to Ithaca.`;

const script = () =>
  new ScriptedLlm([
    NO_MERGES_RULE,
    ...harbourRules(description),
    {
      prompt: 'mder/reduce',
      reply: (v) => ({
        summaries: reduceBlocks(v.entities!).map((b) => ({
          id: b.id,
          name: b.name,
          summary: `${b.name} (${b.type}) landed at many harbours.`,
        })),
      }),
    },
  ]);

/** One document of one dense chunk stating `facts` landings, indexed under a 4,096-token context. */
async function indexDenseChunk(name: string, facts: number) {
  const kb = openKb(join(dir, `${name}.sqlite`));
  const text = Array.from({ length: facts }, (_, i) => `Odysseus landed at Harbour ${i + 1}.`).join(' ');
  addPassageDocument(kb, { path: `/${name}.txt`, title: `${name}.txt`, text });
  const inner = script();
  const llm = new UncooperativeLlm(inner, { seed: 1, contextTokens: 4096, degrade: () => false });
  const result = await new IndexingJob(kb, llm, {
    prompts,
    embedder: new NgramEmbedder(256),
    preprocess: { summarise: false },
    disambiguate: { threshold: 1.01 },
  }).run();
  const triples = [...kb.graph.iterateTriples()];
  kb.close();
  return { result, triples, llm, inner };
}

describe('budgets split the unit instead of truncating it', () => {
  it('Enrich: 50 long descriptions that overflow one call of a 4,096-token context are written in smaller calls', async () => {
    // Their descriptions alone nearly fill the context; with the prompt (chunk and triples) they do not fit.
    expect(50 * countTokens(description(50))).toBeGreaterThan(3800);
    const { result, triples, llm, inner } = await indexDenseChunk('enrich', 50);
    expect(result.failures).toEqual([]);
    expect(llm.count('cutAtMaxTokens')).toBe(0);
    expect(triples).toHaveLength(50);
    for (const t of triples) expect(t.description).toBe(description(Number(t.targetName.replace('Harbour ', ''))));
    expect(inner.callsOf('mder/enrich').length).toBeGreaterThan(1);
  });

  it('Map: a chunk whose triples overflow the 2,048-token budget is halved at a sentence boundary and every triple kept', async () => {
    const { result, triples, llm } = await indexDenseChunk('map', 90);
    expect(llm.count('cutAtMaxTokens', 'mder/map')).toBeGreaterThan(0);
    expect(result.failures).toEqual([]);
    expect(triples.map((t) => t.targetName).sort()).toEqual(
      Array.from({ length: 90 }, (_, i) => `Harbour ${i + 1}`).sort(),
    );
    expect(triples.every((t) => t.description !== null)).toBe(true);
  });
});

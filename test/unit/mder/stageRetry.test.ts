import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StageRunner, type UnitRetry } from '../../../src-main/engine/mder/StageRunner.js';
import { MeteredLlm } from '../../../src-main/engine/mder/MeteredLlm.js';
import { fence } from '../../../src-main/engine/base/fence.js';
import { mapChunk } from '../../../src-main/engine/mder/mapChunk.js';
import { PromptLibrary } from '../../../src-main/engine/models/PromptLibrary.js';
import { ScriptedLlm, type ScriptRule } from '../../support/ScriptedLlm.js';

const prompts = new PromptLibrary(join(import.meta.dirname, '../../../prompts'));

const SUITORS = ['Antinous', 'Eurymachus', 'Amphinomus', 'Ctesippus', 'Leodes', 'Agelaus', 'Eurynomus', 'Peisander'];
/** Two long sentences: a prompt with both is much longer than one with either. */
const SENTENCES = [
  `In the hall of Odysseus at Ithaca the suitors ${SUITORS.join(', ')} feasted day after day, ${SUITORS.map((s) => `${s} drinking the wine and eating the cattle of the house of Odysseus`).join(', ')}.`,
  `Far away at Pylos, Telemachus asked old Nestor about his father, ${SUITORS.map((s) => `while back in Ithaca ${s} plotted to kill him on his way home`).join(', ')}.`,
];
const TEXT = SENTENCES.join(' ');

/** A cooperative Map: one triple per sentence it is shown. */
const mapRule: ScriptRule = {
  prompt: 'mder/map',
  reply: (v) => ({
    triples: [
      ...(v.chunk!.includes('feasted')
        ? [{ subject: 'Suitors', subjectType: 'Group', relation: 'FEASTED_IN', object: 'Ithaca', objectType: 'Island' }]
        : []),
      ...(v.chunk!.includes('Nestor')
        ? [{ subject: 'Telemachus', subjectType: 'Person', relation: 'ASKED', object: 'Nestor', objectType: 'Person' }]
        : []),
    ],
  }),
};

/** Prompt tokens of the Map calls for the whole text and for its halves, as Qwen3 counts them. */
async function promptSizes(): Promise<{ whole: number; half: number }> {
  const probe = new ScriptedLlm([mapRule], { contextTokens: 1_000_000 });
  await mapChunk(probe, { title: 'odyssey', englishText: TEXT }, { prompts });
  await mapChunk(probe, { title: 'odyssey', englishText: TEXT }, { prompts, splitFirst: true });
  const [whole, ...halves] = probe.callsOf('mder/map').map((c) => c.promptTokens);
  return { whole: whole!, half: Math.max(...halves) };
}

/** One Map unit run by the stage as IndexingJob runs it: asked again at the stage's end, halved if it failed for length. */
async function runMapUnit(llm: ScriptedLlm) {
  const runner = new StageRunner(new MeteredLlm(llm), {});
  const retries: (UnitRetry | null)[] = [];
  const triples: string[] = [];
  await runner.units(
    'map',
    [TEXT],
    async (text, signal, retry) => {
      retries.push(retry);
      const result = await mapChunk(
        llm,
        { title: 'odyssey', englishText: text },
        { prompts, signal, splitFirst: retry?.forLength === true },
      );
      triples.push(...result.triples.map((t) => `${t.source} | ${t.relation} | ${t.target}`));
    },
    () => 'chunk 1',
    undefined,
    { retryFailed: true },
  );
  return { failures: runner.failures, retries, triples };
}

describe('a unit that failed is asked again at the end of its stage', () => {
  it('a prompt the context refuses (BAD_INPUT) is asked again with the text halved, and both halves are mapped', async () => {
    const { whole, half } = await promptSizes();
    const contextTokens = half + 100;
    // Room for a half's prompt and its reply (one triple, under 100 tokens); the whole text's prompt does not fit.
    expect(whole).toBeGreaterThan(contextTokens);
    const llm = new ScriptedLlm([mapRule], { contextTokens });
    const { failures, retries, triples } = await runMapUnit(llm);
    expect(failures).toEqual([]);
    expect(llm.callsOf('mder/map').map((c) => c.outcome)).toEqual(['refused', 'ok', 'ok']);
    expect(retries.map((r) => r && { code: r.error.code, forLength: r.forLength })).toEqual([
      null,
      { code: 'BAD_INPUT', forLength: true },
    ]);
    expect(triples).toEqual(['Suitors | FEASTED_IN | Ithaca', 'Telemachus | ASKED | Nestor']);
  });

  it('a reply that fails its schema, not for length, is asked again whole', async () => {
    let calls = 0;
    // The first reply leaves out a required key (as a small model's greedy reply may); the next is right.
    const llm = new ScriptedLlm([
      {
        prompt: 'mder/map',
        reply: (v, p, sampling) =>
          ++calls === 1 ? { triples: [{ subject: 'Suitors', object: 'Ithaca' }] } : mapRule.reply(v, p, sampling),
      },
    ]);
    const { failures, retries, triples } = await runMapUnit(llm);
    expect(failures).toEqual([]);
    expect(retries.map((r) => r && { code: r.error.code, forLength: r.forLength })).toEqual([
      null,
      { code: 'LLM_OUTPUT_INVALID', forLength: false },
    ]);
    expect(llm.callsOf('mder/map').map((c) => c.prompt.variables.chunk)).toEqual([fence(TEXT), fence(TEXT)]);
    expect(triples).toEqual(['Suitors | FEASTED_IN | Ithaca', 'Telemachus | ASKED | Nestor']);
  });
});

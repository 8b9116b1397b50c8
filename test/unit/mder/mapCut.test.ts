import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mapChunk } from '../../../src-main/engine/mder/mapChunk.js';
import { PromptLibrary } from '../../../src-main/engine/models/PromptLibrary.js';
import { SamplingLlm } from './support/SamplingLlm.js';

const prompts = new PromptLibrary(join(import.meta.dirname, '../../../prompts'));

const SUITORS = ['Antinous', 'Eurymachus', 'Amphinomus', 'Ctesippus', 'Leodes', 'Agelaus'];

describe('Map reply cut at the token limit', () => {
  it('keeps the complete triples of a one-sentence chunk, each checked against the schema, and says it was cut', async () => {
    // Every sampling writes the same long list (the chunk is dense), so the retry is cut too.
    const llm = new SamplingLlm([
      {
        prompt: 'mder/map',
        // Laid out as models write it (a word stands for a token, so the cut falls inside the JSON).
        reply: () =>
          JSON.stringify(
            {
              triples: [
                // A complete entry that fails the schema (no relation): not kept.
                { subject: 'Penelope', subjectType: 'Person', object: 'Ithaca', objectType: 'City' },
                ...SUITORS.map((s) => ({
                  subject: s,
                  subjectType: 'Person',
                  relation: 'suitor of',
                  object: 'Penelope',
                  objectType: 'Person',
                })),
              ],
            },
            null,
            1,
          ),
      },
    ]);
    // Words stand for tokens: 60 words end inside the fifth suitor's triple.
    const result = await mapChunk(
      llm,
      { title: 'odyssey', englishText: `${SUITORS.join(', ')} courted Penelope in the hall of Odysseus at Ithaca.` },
      { prompts, maxTokens: 60 },
    );
    const calls = llm.callsOf('mder/map');
    expect(calls.at(-1)!.output).not.toMatch(/\]\s*\}\s*$/);
    const kept = result.triples.map((t) => t.source);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(SUITORS.length);
    expect(kept).toEqual(SUITORS.slice(0, kept.length));
    expect(result.triples.every((t) => t.relation === 'SUITOR_OF' && t.target === 'Penelope')).toBe(true);
    expect(result.cuts).toBe(1);
    expect(result.usage.completionTokens).toBeGreaterThan(0);
  });
});

describe('Map asked again after a failure for length', () => {
  it('with splitFirst, halves the text at a sentence boundary before the first call and keeps the triples of both halves', async () => {
    const sentences = ['Penelope wove a shroud in Ithaca.', 'Telemachus sailed to Pylos.'];
    const llm = new SamplingLlm([
      {
        prompt: 'mder/map',
        reply: (v) => ({
          triples: sentences
            .filter((s) => v.chunk!.includes(s))
            .map((s) => {
              const [subject, , , object] = s.replace(/\.$/, '').split(' ');
              return { subject, subjectType: 'Person', relation: 'acted in', object, objectType: 'Thing' };
            }),
        }),
      },
    ]);
    const result = await mapChunk(
      llm,
      { title: 'odyssey', englishText: sentences.join(' ') },
      { prompts, splitFirst: true },
    );
    expect(llm.callsOf('mder/map').map((c) => c.prompt.variables.chunk)).toEqual(sentences);
    expect(result.triples.map((t) => t.source)).toEqual(['Penelope', 'Telemachus']);
  });
});

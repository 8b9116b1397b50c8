import { describe, expect, it } from 'vitest';
import type { GbnfJsonSchema, LlamaGrammar } from 'node-llama-cpp';
import { batchReplySchema } from '../../src-main/engine/mder/askInBatches.js';
import { disambiguateReplySchema } from '../../src-main/engine/mder/confirmPairs.js';
import { getLlamaRuntime } from '../../src-main/engine/models/llamaRuntime.js';
import { zodJsonSchema } from '../../src-main/engine/models/grammarSchema.js';
import type { z } from 'zod';
import { LlamaCppLlm } from '../../src-main/engine/models/LlamaCppLlm.js';
import { tinyLlamaPath } from '../fixtures/tinyLlama.js';

/**
 * The content keys of batched replies are enums of the batch's names in the grammar (see
 * mder/askInBatches.ts `keyOneOf`): node-llama-cpp must spell every name as a JSON string the
 * reply parses back to, whatever its characters, and refuse any other name.
 */
const NAMES = [
  'Zoë Ødegård',
  'Μαρία Κάλλας',
  '北京',
  'The "Owl" 🦉',
  'C:\\Temp\\back\\slash',
  "O'Brien | Sons",
  'two\nlines\tand tab',
];

async function grammarOf(schema: z.ZodType): Promise<LlamaGrammar> {
  const { llama } = await getLlamaRuntime(false);
  // The schema is only known at run time (as in LlamaCppLlm), so the typed API's inference does not apply.
  const create = llama.createGrammarForJsonSchema.bind(llama) as (s: GbnfJsonSchema) => Promise<LlamaGrammar>;
  return create(zodJsonSchema(schema).grammar as GbnfJsonSchema);
}

/**
 * Whether the grammar accepts the whole text (node-llama-cpp's own check, internal). Its JSON
 * grammars end in four newlines, the stop trigger the library cuts off the reply.
 */
const accepts = (grammar: LlamaGrammar, text: string): boolean =>
  (grammar as unknown as { _testText(text: string): boolean })._testText(`${text}\n\n\n\n`);

const reply = (entries: { id: number; object: string }[]) =>
  JSON.stringify({ descriptions: entries.map((e) => ({ ...e, description: 'A fact.' })) });

describe('batched content keys are grammar enums of the batch names', () => {
  it('every name, unicode, quotes, backslashes and newlines included, is accepted and parses back; another name is refused', async () => {
    const schema = batchReplySchema(NAMES, 'descriptions', 'object', 'description');
    const grammar = await grammarOf(schema);
    for (const [i, name] of NAMES.entries()) {
      const text = reply([...NAMES.map((_, k) => ({ id: k + 1, object: NAMES[(k + i) % NAMES.length]! }))]);
      expect(accepts(grammar, text), name).toBe(true);
      expect(schema.parse(JSON.parse(text)).descriptions?.[0]?.object).toBe(name);
    }
    const names = NAMES.map((object, k) => ({ id: k + 1, object }));
    for (const wrong of ['Zoe Ødegård', 'zoë ødegård', 'Maria Callas', 'The "Owl"', 'Zoë']) {
      expect(accepts(grammar, reply([{ id: 1, object: wrong }, ...names.slice(1)])), wrong).toBe(false);
    }
  });

  it("a name the grammar could not spell (a C0 control) leaves that batch's key free rather than breaking the grammar", async () => {
    const schema = batchReplySchema(['Bell\u0007', 'Ithaca'], 'descriptions', 'object', 'description');
    const grammar = await grammarOf(schema);
    expect(
      accepts(
        grammar,
        reply([
          { id: 1, object: 'anything' },
          { id: 2, object: 'else' },
        ]),
      ),
    ).toBe(true);
  });

  it("a Disambiguate reply's a and b are the batch's A and B names", async () => {
    const schema = disambiguateReplySchema(['P1', 'P2'], { a: ['Zoë', 'Ulysses'], b: ['Zoe', 'Odysseus'] });
    const grammar = await grammarOf(schema);
    const decide = (a: string, b: string) =>
      JSON.stringify({
        decisions: [
          { pair: 'P1', a, b, same: true, canonical: 'Zoë' },
          { pair: 'P2', a: 'Ulysses', b: 'Odysseus', same: true, canonical: 'Odysseus' },
        ],
      });
    expect(accepts(grammar, decide('Zoë', 'Zoe'))).toBe(true);
    // Crossed or swapped names are each still a batch name: the content check (sameKey) refuses them.
    expect(accepts(grammar, decide('Ulysses', 'Zoe'))).toBe(true);
    expect(accepts(grammar, decide('Zoe', 'Zoe'))).toBe(false);
    expect(accepts(grammar, decide('Zoë', 'Odysseus '))).toBe(false);
  });

  it('a batch name the model cannot write (a character outside its vocabulary) ends the call, never hangs it', async () => {
    // The tiny llama has no token for 뽑: as an enum literal, llama.cpp's sampler could only take
    // the unknown token and node-llama-cpp failed outside the call, whose promise never settled.
    const llm = await LlamaCppLlm.create({ path: await tinyLlamaPath(), threads: 1, contextSize: 1024, gpu: false });
    try {
      const schema = disambiguateReplySchema(['P1'], { a: ['H뽑y0c'], b: ['Ithaca'] });
      const prompt = {
        name: 'test/disambiguate',
        version: '1',
        system: 'Decide.',
        user: 'P1: H뽑y0c ~ Ithaca',
        variables: {},
      };
      const outcome = await llm.generateJson(prompt, schema, { maxTokens: 48 }).then(
        () => 'reply',
        (error: unknown) => (error as { code?: string }).code,
      );
      expect(['reply', 'LLM_OUTPUT_INVALID']).toContain(outcome);
    } finally {
      await llm.dispose();
    }
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IndexingJob } from '../../../src-main/engine/mder/IndexingJob.js';
import type { SchemaEnforcement } from '../../support/grammarValues.js';
import { addPassageDocument } from '../../support/passageDocument.js';
import { ScriptedLlm, type ScriptRule } from '../../support/ScriptedLlm.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';
import { summariseBatchRule } from '../../support/summariseBatchPrompt.js';
import { UncooperativeLlm } from '../../support/UncooperativeLlm.js';
import { openKb, prompts } from './support/corpusKb.js';

/**
 * Batched Preprocess (the default) with a model that does not cooperate: the product corpus of
 * uncooperativeProduct.test.ts has no two one-chunk documents in one language, so no batch, and
 * this is where the batched prompt meets UncooperativeLlm. Twelve Italian documents of one chunk
 * (a batch of 8 and one of 4), each naming its own island; over seeds, in both schema modes, no
 * chunk gets another's text, and a chunk left without one fails its own document.
 */

const dir = mkdtempSync(join(tmpdir(), 'polyhop-uncooperative-batches-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ISLANDS = ['Itaca', 'Samo', 'Zante', 'Corfù', 'Creta', 'Rodi', 'Delo', 'Nasso', 'Paro', 'Milo', 'Chio', 'Lesbo'];
const DOCS = ISLANDS.map((name, i) => ({
  title: name,
  text: `${name} è un’isola greca, la numero ${i + 1} di questo elenco.`,
  language: 'it',
}));
const SEEDS_PER_MODE = 15;
const MODES = ['grammar', 'ignored'] as const satisfies readonly SchemaEnforcement[];

/** The cooperative model: each chunk rewritten in English, recognisably its own; the batched form from the same rule. */
const summarise: ScriptRule = { prompt: 'ingest/summarise', reply: (v) => ({ text: `In English: ${v.chunk}` }) };

async function runSeed(seed: number, schema: SchemaEnforcement) {
  const inner = new ScriptedLlm(
    [summarise, summariseBatchRule(summarise), { prompt: 'mder/map', reply: () => ({ triples: [] }) }],
    { schema },
  );
  // Only Preprocess is degraded: a lost Map reply would fail documents for reasons this test is not about.
  const llm = new UncooperativeLlm(inner, { seed, schema, degrade: (name) => name.startsWith('ingest/') });
  const kb = openKb(join(dir, `${schema}-${seed}.sqlite`));
  try {
    for (const d of DOCS) addPassageDocument(kb, { path: `${d.title}.txt`, ...d });
    const result = await new IndexingJob(kb, llm, { prompts, concurrency: 1, embedder: new NgramEmbedder(64) }).run();
    const docs = new Map([...kb.documents.iterateDocuments()].map((d) => [d.id, d]));
    const status = new Map(result.documents.map((d) => [d.id, d.status]));
    const chunks = [...kb.documents.iterateChunks()].map((c) => ({
      title: docs.get(c.documentId)!.title,
      englishText: c.englishText,
      status: status.get(c.documentId),
    }));
    return { chunks, degradations: llm.degradations, batches: inner.callsOf('ingest/summarise-batch') };
  } finally {
    kb.close();
  }
}

/** A text is its chunk's own when it names its island and no other (a rewrite, or the source left untranslated). */
const namesOnly = (text: string, own: string): boolean =>
  text.includes(own) && ISLANDS.every((other) => other === own || !text.includes(other));

describe.each(MODES)('batched Preprocess with an uncooperative model (%s)', (schema) => {
  let started: ReturnType<typeof runSeed>[] | undefined;
  /** The seeds' runs, started by the first test that needs them. */
  const seeds = () =>
    Promise.all((started ??= Array.from({ length: SEEDS_PER_MODE }, (_, i) => runSeed(i + 1, schema))));

  it('no chunk gets another’s text; a chunk left without one fails its own document', async () => {
    for (const [i, run] of (await seeds()).entries()) {
      for (const c of run.chunks) {
        if (c.englishText === null) expect(c.status, `seed ${i + 1}: ${c.title} without a text`).toBe('error');
        else expect(namesOnly(c.englishText, c.title), `seed ${i + 1}: ${c.title}: ${c.englishText}`).toBe(true);
      }
    }
  });

  it('the seeds asked batches of several chunks and degraded them in every way a batch can be', async () => {
    const all = await seeds();
    expect(all.every((r) => r.batches.some((c) => c.prompt.variables.passages!.split('<document').length > 2))).toBe(
      true,
    );
    const made = new Set(
      all.flatMap((r) => r.degradations.filter((d) => d.prompt === 'ingest/summarise-batch').map((d) => d.kind)),
    );
    // No dropItem: the reply schema asks for one entry per passage, so a dropped entry is not schema-valid (the
    // double does not make it); renumberedIds is the skipped passage a grammar-held model fills the count after.
    const expected = [
      'repeatItem',
      'swapItems',
      'renumberedIds',
      'textUnderTwoIds',
      'sourceLanguage',
      'reasoningPrefix',
      'cutAtMaxTokens',
      ...(schema === 'grammar' ? ['wrongAllowedValue'] : []),
    ];
    console.log(`${schema}: batched Preprocess degraded by ${[...made].sort().join(', ')}`);
    expect(expected.filter((kind) => !made.has(kind as never))).toEqual([]);
    // Most chunks still get a text: the test is not passing on chunks that got none.
    const texts = all.flatMap((r) => r.chunks).filter((c) => c.englishText !== null).length;
    expect(texts / (all.length * DOCS.length)).toBeGreaterThan(0.9);
  });
});

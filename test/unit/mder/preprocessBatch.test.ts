import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IndexingJob } from '../../../src-main/engine/mder/IndexingJob.js';
import { addPassageDocument } from '../../support/passageDocument.js';
import { ScriptedLlm, type ScriptRule } from '../../support/ScriptedLlm.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';
import { batchedPassages, summariseBatchRule } from '../../support/summariseBatchPrompt.js';
import { openKb, prompts } from './support/corpusKb.js';

const dir = mkdtempSync(join(tmpdir(), 'polyhop-preprocess-batch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Four documents of one chunk each. */
const DOCS = [
  { title: 'Odysseus', text: 'Odysseus was king of Ithaca.' },
  { title: 'Penelope', text: 'Penelope waited twenty years for Odysseus.' },
  { title: 'Telemachus', text: 'Telemachus sailed to Pylos to ask Nestor about his father.' },
  { title: 'Argos', text: 'Argos, the dog of Odysseus, knew his master after twenty years.' },
];
/** What a faithful rewrite of a passage is, in these tests: recognisably its own. */
const clean = (text: string): string => `Clean: ${text}`;

interface Entry {
  id: number;
  title: string;
  text: string;
}
/** The single-chunk Preprocess rule of a model that rewrites each chunk as `rewrite` says. */
const summarise = (rewrite = clean): ScriptRule => ({
  prompt: 'ingest/summarise',
  reply: (v) => ({ text: rewrite(v.chunk!) }),
});
/**
 * The batched form of `single` (summariseBatchRule: each passage's own id, title and rewrite),
 * its entries as `change` writes them.
 */
const batched = (change = (entries: Entry[]): Entry[] => entries, single = summarise()): ScriptRule => {
  const rule = summariseBatchRule(single);
  return {
    ...rule,
    reply: (v, prompt, sampling) => ({
      passages: change((rule.reply(v, prompt, sampling) as { passages: Entry[] }).passages),
    }),
  };
};

/** A Preprocess model that writes its first batch of four as `degrade` says, and cooperates after. */
function model(degrade: (cooperative: Entry[]) => Entry[]): ScriptedLlm {
  let first = true;
  const rules: ScriptRule[] = [
    batched((written) => {
      if (!first || written.length < 4) return written;
      first = false;
      return degrade(written);
    }),
    summarise(),
    { prompt: 'mder/map', reply: () => ({ triples: [] }) },
  ];
  return new ScriptedLlm(rules);
}

let runs = 0;
/**
 * Indexes the documents, four to a Preprocess call (`chunksPerCall` null: the job's default), in
 * a new KB or `file`'s; each chunk's English text by its title, and the run's failures.
 */
async function index(
  llm: ScriptedLlm,
  docs: readonly { title: string; text: string; language?: string }[] = DOCS,
  file = join(dir, `kb${runs++}.sqlite`),
  chunksPerCall: number | null = 4,
) {
  const kb = openKb(file);
  try {
    for (const d of docs) addPassageDocument(kb, { path: `${d.title}.txt`, ...d });
    const result = await new IndexingJob(kb, llm, {
      prompts,
      concurrency: 1,
      embedder: new NgramEmbedder(64),
      ...(chunksPerCall === null ? {} : { preprocess: { chunksPerCall } }),
    }).run();
    const title = new Map([...kb.documents.iterateDocuments()].map((d) => [d.id, d.title]));
    const english = Object.fromEntries(
      [...kb.documents.iterateChunks()].map((c) => [title.get(c.documentId)!, c.englishText]),
    );
    const status = Object.fromEntries(result.documents.map((d) => [title.get(d.id)!, d.status]));
    return { english, status, failures: result.failures.map((f) => f.message) };
  } finally {
    kb.close();
  }
}

const everyOwnText = Object.fromEntries(DOCS.map((d) => [d.title, clean(d.text)]));
/** The items asked again alone after the first batch, by the title each was asked under. */
const askedAlone = (llm: ScriptedLlm): string[] =>
  llm
    .callsOf('ingest/summarise-batch')
    .slice(1)
    .map((c) =>
      batchedPassages(c.prompt.variables.passages!)
        .map((p) => p.title)
        .join('+'),
    );

describe('Preprocess several documents of one chunk per call', () => {
  it('by default eight to a call, and a call holds chunks of one language only', async () => {
    // Nine English documents and two Italian ones, interleaved: the batched prompt names one language.
    const english = Array.from({ length: 9 }, (_, i) => ({
      title: `Island ${i + 1}`,
      text: `Island ${i + 1} lies west.`,
    }));
    const italian = [
      { title: 'Itaca', text: 'Itaca è un’isola.', language: 'it' },
      { title: 'Troia', text: 'Troia cadde.', language: 'it' },
    ];
    const docs = [...english.slice(0, 4), italian[0]!, ...english.slice(4), italian[1]!];
    const llm = model((e) => e);
    const { english: texts, failures } = await index(llm, docs, undefined, null);
    expect(texts).toEqual(Object.fromEntries(docs.map((d) => [d.title, clean(d.text)])));
    expect(failures).toEqual([]);
    const batches = llm.callsOf('ingest/summarise-batch').map((c) => ({
      language: c.prompt.variables.language,
      titles: batchedPassages(c.prompt.variables.passages!).map((p) => p.title),
    }));
    expect(batches).toEqual([
      { language: 'English', titles: english.slice(0, 8).map((d) => d.title) },
      { language: 'Italian', titles: ['Itaca', 'Troia'] },
    ]);
    // The ninth English chunk is a batch of one: the single-chunk prompt.
    expect(llm.callsOf('ingest/summarise').map((c) => c.prompt.variables.chunk)).toEqual([english[8]!.text]);
  });

  it('a cooperative model: one call for four chunks, each given its own text', async () => {
    const llm = model((e) => e);
    const { english, failures } = await index(llm);
    expect(english).toEqual(everyOwnText);
    expect(failures).toEqual([]);
    expect(llm.callsOf('ingest/summarise-batch')).toHaveLength(1);
    expect(llm.callsOf('ingest/summarise')).toHaveLength(0);
  });

  it('ids drifted with their content (each text, with its title, under the next id): no chunk gets another’s text', async () => {
    const llm = model((e) => e.map((entry, i) => ({ ...e[(i + 1) % e.length]!, id: entry.id })));
    const { english, failures } = await index(llm);
    expect(english).toEqual(everyOwnText);
    expect(failures).toEqual([]);
    // Every entry named another item's title: all four asked again, alone.
    expect(askedAlone(llm)).toEqual(DOCS.map((d) => d.title));
  });

  it('an item missing (the last entry written twice to make up the count): it is asked again alone, the others kept', async () => {
    const llm = model((e) => [e[0]!, e[1]!, e[3]!, e[3]!].map((entry, i) => ({ ...entry, id: i + 1 })));
    const { english, failures } = await index(llm);
    expect(english).toEqual(everyOwnText);
    expect(failures).toEqual([]);
    // Penelope and Odysseus kept; Telemachus had no entry and Argos's title came under two ids: both asked again.
    expect(askedAlone(llm)).toEqual(['Telemachus', 'Argos']);
  });

  it('a reply cut at its budget: split, and the chunk whose rewrite alone does not fit is asked with the single-chunk prompt', async () => {
    // Telemachus's rewrite runs far past its share of the budget (a model that repeats itself), in every batch.
    const long = (entry: Entry): Entry =>
      entry.title === 'Telemachus' ? { ...entry, text: `${entry.text} ${'and his father '.repeat(200)}` } : entry;
    const rules: ScriptRule[] = [
      batched((entries) => entries.map(long)),
      summarise(),
      { prompt: 'mder/map', reply: () => ({ triples: [] }) },
    ];
    const llm = new ScriptedLlm(rules);
    const { english, failures } = await index(llm);
    expect(english).toEqual(everyOwnText);
    expect(failures).toEqual([]);
    expect(llm.callsOf('ingest/summarise-batch').some((c) => c.outcome === 'cut')).toBe(true);
    expect(llm.callsOf('ingest/summarise').map((c) => c.prompt.variables.chunk)).toEqual([DOCS[2]!.text]);
  });

  it('a run stopped after its first batch resumes with the chunks it did not write, and asks none twice', async () => {
    const more = [...DOCS, ...DOCS.map((d) => ({ title: `${d.title} II`, text: `${d.text} Again.` }))];
    const file = join(dir, 'resume.sqlite');
    let calls = 0;
    const crashing = new ScriptedLlm([
      batched((entries) => {
        if (++calls === 2) throw new Error('backend crashed');
        return entries;
      }),
    ]);
    await expect(index(crashing, more, file)).rejects.toThrow('backend crashed');
    const llm = model((e) => e);
    // The second run adds no documents: only the KB's unindexed ones.
    const { english, failures } = await index(llm, [], file);
    expect(english).toEqual(Object.fromEntries(more.map((d) => [d.title, clean(d.text)])));
    expect(failures).toEqual([]);
    expect(askedAlone(llm)).toEqual([]);
    expect(
      llm.callsOf('ingest/summarise-batch').map((c) => batchedPassages(c.prompt.variables.passages!).length),
    ).toEqual([4]);
  });

  it('a chunk that no prompt gets a text for fails its own document only; the others of its batch are indexed', async () => {
    // Telemachus's rewrite never fits, batched or alone.
    const endless = `${'and his father '.repeat(2000)}`;
    const single = summarise((chunk) => (chunk === DOCS[2]!.text ? endless : clean(chunk)));
    const rules: ScriptRule[] = [
      batched(undefined, single),
      single,
      { prompt: 'mder/map', reply: () => ({ triples: [] }) },
    ];
    const { english, status, failures } = await index(new ScriptedLlm(rules));
    expect(english).toEqual({ ...everyOwnText, Telemachus: null });
    expect(status).toEqual({ Odysseus: 'indexed', Penelope: 'indexed', Telemachus: 'error', Argos: 'indexed' });
    expect(failures).toHaveLength(1);
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { IndexingJob, type IndexingJobOptions, type IndexingProgress } from '../../../src-main/engine/mder/index.js';
import { CachingLlm } from '../../../src-main/engine/models/CachingLlm.js';
import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';
import {
  addCorpusDocument,
  CHUNK_SCRIPT,
  CORPUS_FILES,
  CorpusEmbedder,
  corpusRules,
  DESCRIPTIONS,
  NO_MERGES_RULE,
  reduceBlocks,
  scriptedSummary,
  type CorpusRulesOptions,
} from '../../support/corpusScript.js';
import { openKb, prompts, snapshot } from './support/corpusKb.js';
import { askedPairs } from '../../support/disambiguatePrompt.js';
import { addPassageDocument } from '../../support/passageDocument.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'polyhop-mder-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function job(kb: KnowledgeBase, llm: ScriptedLlm | CachingLlm, extra: Partial<IndexingJobOptions> = {}) {
  return new IndexingJob(kb, llm, { prompts, embedder: new CorpusEmbedder(), ...extra });
}

function scripted(options: CorpusRulesOptions = {}) {
  return new ScriptedLlm(corpusRules(options));
}

/** Entity names in the blocks of the reduce calls of a run. */
function reducedNames(llm: ScriptedLlm): string[] {
  return llm
    .callsOf('mder/reduce')
    .flatMap((c) => [...c.prompt.variables.entities!.matchAll(/^\d+\. Entity: (.+) \(type: .+\)$/gm)].map((m) => m[1]!))
    .sort();
}

const ALL_TRIPLES = [
  'Odysseus | DEFEATED | Suitors',
  'Odysseus | DISGUISED_AS | Beggar',
  'Odysseus | KING_OF | Ithaca',
  'Odysseus | MARRIED_TO | Penelope',
  'Odysseus | RETURNED_TO | Ithaca',
  'Odysseus | SON_OF | Laertes',
  'Odysseus | WANDERED_AFTER | Fall of Troy',
  'Odysseus | WANDERED_FOR | Ten Years',
  'Penelope | DAUGHTER_OF | Icarius',
  'Penelope | DECEIVED | Suitors',
  'Penelope | MARRIED_TO | Odysseus',
  'Penelope | WAITED_FOR | Odysseus',
  'Penelope | WOVE | Shroud',
  'Poseidon | ANGRY_WITH | Odysseus',
  'Telemachus | HELPED | Odysseus',
  'Telemachus | SEARCHED_IN | Pylos',
  'Telemachus | SEARCHED_IN | Sparta',
  'Telemachus | SON_OF | Odysseus',
  'Telemachus | SON_OF | Penelope',
];

describe('IndexingJob on the multilingual Odysseus corpus', () => {
  it('extracts, merges, describes and summarises exactly, with one call per chunk per stage', async () => {
    const kb = openKb(join(dir, 'kb.sqlite'));
    for (const f of CORPUS_FILES) addCorpusDocument(kb, f);
    const llm = scripted();
    const progress: IndexingProgress[] = [];
    const rdf: number[][] = [];
    const result = await job(kb, llm, {
      onProgress: (p) => progress.push(p),
      updateRdfView: async (changes) => void rdf.push(changes.documentIds),
    }).run();

    const snap = snapshot(kb);
    expect(result.failures).toEqual([]);
    expect(snap.documents.map((d) => [d.title, d.status, d.error])).toEqual([
      ['odysseus.en.md', 'indexed', null],
      ['penelope.fr.txt', 'indexed', null],
      ['telemaco.es.txt', 'indexed', null],
      ['ulisse.it.txt', 'indexed', null],
    ]);
    // The original text is kept; the English text feeds extraction.
    const it0 = snap.chunks.find((c) => c.chunk === 'ulisse.it.txt#0')!;
    expect(it0.text).toBe('Ulisse, re di Itaca, tornò a casa travestito da mendicante.');
    expect(it0.englishText).toBe(CHUNK_SCRIPT['ulisse.it.txt'][0]!.summary);

    // Triples after disambiguation: Ulysses/Ulises → Odysseus, Pénélope → Penelope, Telémaco → Telemachus;
    // duplicates from two languages became one triple with both chunks as provenance.
    expect(snap.triples.map((t) => t.split(' | ').slice(0, 3).join(' | '))).toEqual(ALL_TRIPLES);
    expect(snap.triples).toContain(
      `Odysseus | KING_OF | Ithaca | ${DESCRIPTIONS['Odysseus|KING_OF|Ithaca']} | odysseus.en.md#0,ulisse.it.txt#0`,
    );
    expect(snap.triples).toContain(
      `Telemachus | SON_OF | Odysseus | ${DESCRIPTIONS['Telemachus|SON_OF|Odysseus']} | odysseus.en.md#2,telemaco.es.txt#0`,
    );
    expect(snap.triples).toContain(
      'Penelope | WAITED_FOR | Odysseus | Penelope waited twenty years for Odysseus to return. | penelope.fr.txt#0',
    );

    const byName = new Map(snap.entities.map((e) => [e.name, e]));
    expect([...byName.keys()].sort()).toEqual(
      [
        'Beggar',
        'Fall of Troy',
        'Icarius',
        'Ithaca',
        'Laertes',
        'Odysseus',
        'Penelope',
        'Poseidon',
        'Pylos',
        'Shroud',
        'Sparta',
        'Suitors',
        'Telemachus',
        'Ten Years',
      ].sort(),
    );
    expect(byName.get('Odysseus')!.aliases).toEqual(['Ulises', 'Ulysses']);
    expect(byName.get('Penelope')!.aliases).toEqual(['Pénélope']);
    expect(byName.get('Telemachus')!.aliases).toEqual(['Telémaco']);
    expect(byName.get('Pylos')!.aliases).toEqual([]);
    expect(byName.get('Ithaca')!.type).toBe('Island');
    // One described fact: the description, with the entity's name and type, is the summary, no call.
    expect(byName.get('Icarius')!.summary).toBe('Icarius (Person): Penelope was the daughter of Icarius.');
    expect(byName.get('Laertes')!.summary).toBe('Laertes (Person): Odysseus was the son of Laertes.');
    expect(byName.get('Ithaca')!.summary).toBe(
      `Ithaca (Island): ${DESCRIPTIONS['Odysseus|KING_OF|Ithaca']} ${DESCRIPTIONS['Odysseus|RETURNED_TO|Ithaca']}`,
    );
    // Odysseus is summarised from the descriptions of all 13 triples it takes part in.
    const odysseusFacts = ALL_TRIPLES.filter((t) => t.split(' | ').includes('Odysseus')).map((t) => {
      const [s, r, o] = t.split(' | ');
      return DESCRIPTIONS[`${s}|${r}|${o}`]!;
    });
    expect(odysseusFacts).toHaveLength(13);
    const summary = byName.get('Odysseus')!.summary!;
    expect(summary.startsWith('Odysseus (Person): ')).toBe(true);
    for (const fact of odysseusFacts) expect(summary).toContain(fact);
    expect(snap.entities.every((e) => !e.stale && e.summary)).toBe(true);

    // Calls: one per chunk for preprocess, map and enrich; pairs and entities batched. Preprocess
    // batches documents of one chunk by language (the default), and the corpus's two, French and
    // Spanish, share none: each gets the single-chunk prompt.
    expect(llm.callsOf('ingest/summarise')).toHaveLength(7);
    expect(llm.callsOf('ingest/summarise-batch')).toHaveLength(0);
    expect(llm.callsOf('ingest/translate')).toHaveLength(0);
    expect(llm.callsOf('mder/map')).toHaveLength(7);
    // One per chunk, also for the two chunks whose triples share their object (Ithaca, Odysseus):
    // entries are told apart by relation and object, so such triples are asked together.
    expect(llm.callsOf('mder/enrich')).toHaveLength(7);
    expect(llm.callsOf('mder/disambiguate').length).toBeLessThanOrEqual(2);
    expect(llm.callsOf('mder/reduce')).toHaveLength(1);
    expect(reducedNames(llm)).toEqual(['Ithaca', 'Odysseus', 'Penelope', 'Suitors', 'Telemachus']);
    // KING_OF was described once, from its newest chunk with the English chunk as other context,
    // in one call with RETURNED_TO, which also ends at Ithaca.
    const enrichOf = (relation: string) =>
      llm.callsOf('mder/enrich').find((c) => c.prompt.variables.triples!.includes(relation))!;
    const kingOf = enrichOf('KING_OF');
    expect(kingOf.prompt.variables.triples).toBe(
      '1. Odysseus | KING_OF | Ithaca\n2. Odysseus | RETURNED_TO | Ithaca\n3. Odysseus | DISGUISED_AS | Beggar',
    );
    expect(kingOf.prompt.variables.after).toBe(
      `<document part="next">\n${CHUNK_SCRIPT['ulisse.it.txt'][1]!.summary}\n</document>\n` +
        `<document part="other">\n${CHUNK_SCRIPT['odysseus.en.md'][0]!.summary}\n</document>\n`,
    );

    // Original-language vectors for the 4 non-English chunks only: the 3 English ones are embedded once.
    expect(snap.vectors).toEqual({
      chunk: 7,
      chunk_original: 4,
      entity_name: 14,
      entity_summary: 14,
      entity_partial: 0,
      triple: 19,
      passage: 0,
    });
    expect(kb.textIndex.bm25('chunk_original', 'mendicante', 3)).toHaveLength(1); // the text as written is searchable
    expect(kb.textIndex.bm25('chunk', 'mendicante', 3)).toHaveLength(0); // the English corpus holds English text only
    expect(kb.textIndex.bm25('triple', 'beggar', 5).length).toBeGreaterThan(0);
    expect(rdf).toHaveLength(1);
    expect(rdf[0]!.sort()).toEqual([...kb.documents.iterateDocuments()].map((d) => d.id).sort());

    const stages = [...new Set(progress.map((p) => p.stage))];
    expect(stages).toEqual(['preprocess', 'map', 'disambiguate', 'enrich', 'reduce', 'embed', 'rdf']);
    const lastMap = progress.filter((p) => p.stage === 'map').at(-1)!;
    expect(lastMap).toMatchObject({ done: 7, total: 7, llmCalls: 7, cacheHits: 0 });
    expect(lastMap.promptTokens).toBeGreaterThan(0);
    expect(result.stages.enrich).toMatchObject({ units: 7, calls: 7, failed: 0 });
    kb.close();
  });

  it('indexes incrementally: new chunks only, new entities against old ones, re-reduces only what changed; deletion re-reduces what it touched', async () => {
    const kb = openKb(join(dir, 'kb.sqlite'));
    addCorpusDocument(kb, 'odysseus.en.md');
    addCorpusDocument(kb, 'ulisse.it.txt');
    await job(kb, scripted()).run();
    expect(kb.graph.findEntityByName('Ulysses')!.name).toBe('Odysseus');

    addCorpusDocument(kb, 'penelope.fr.txt');
    const es = addCorpusDocument(kb, 'telemaco.es.txt');
    const second = scripted();
    await job(kb, second).run();
    // Two documents of one chunk, in two languages: one single-chunk call each, no batch.
    expect(second.callsOf('ingest/summarise')).toHaveLength(2);
    expect(second.callsOf('mder/map')).toHaveLength(2);
    // Telemachus SON_OF Odysseus was already described: only the 4 new triples are.
    expect(second.callsOf('mder/enrich').map((c) => c.prompt.variables.triples)).toEqual([
      '1. Penelope | DAUGHTER_OF | Icarius\n2. Penelope | WAITED_FOR | Odysseus',
      '1. Telemachus | HELPED | Odysseus\n2. Odysseus | DEFEATED | Suitors',
    ]);
    // "Ulysses" and "Ulises" already resolve to Odysseus (alias / pair); every pair asked has a new entity.
    const newNames = ['Pénélope', 'Icarius', 'Ulises', 'Telémaco'];
    const pairs = second.callsOf('mder/disambiguate').flatMap((c) => askedPairs(c.prompt.variables));
    expect(pairs.length).toBeGreaterThan(0);
    for (const pair of pairs) expect(newNames.some((n) => pair.a === n || pair.b === n)).toBe(true);
    expect(reducedNames(second)).toEqual(['Odysseus', 'Penelope', 'Suitors', 'Telemachus']);
    expect(kb.graph.findEntityByName('Icarius')!.summary).toBe(
      'Icarius (Person): Penelope was the daughter of Icarius.',
    );

    // Same KB as indexing all four documents at once.
    const fresh = openKb(join(dir, 'fresh.sqlite'));
    for (const f of CORPUS_FILES) addCorpusDocument(fresh, f);
    await job(fresh, scripted()).run();
    const a = snapshot(kb);
    const b = snapshot(fresh);
    expect(a.triples).toEqual(b.triples);
    expect(a.entities.map((e) => [e.name, e.type, e.aliases])).toEqual(
      b.entities.map((e) => [e.name, e.type, e.aliases]),
    );
    fresh.close();

    kb.documents.deleteDocument(es.id);
    const third = scripted();
    await job(kb, third).run();
    expect(third.calls.filter((c) => c.prompt.name !== 'mder/reduce')).toEqual([]);
    expect(reducedNames(third)).toEqual(['Odysseus', 'Telemachus']);
    expect(kb.graph.findEntityByName('Suitors')!.summary).toBe(
      `Suitors (Group): ${DESCRIPTIONS['Penelope|DECEIVED|Suitors']}`,
    );
    const after = snapshot(kb);
    expect(after.triples.some((t) => t.includes('HELPED') || t.includes('DEFEATED'))).toBe(false);
    expect(after.triples).toContain(
      `Telemachus | SON_OF | Odysseus | ${DESCRIPTIONS['Telemachus|SON_OF|Odysseus']} | odysseus.en.md#2`,
    );
    expect(after.entities.find((e) => e.name === 'Telemachus')!.summary).not.toContain('helped');
    kb.close();
  });

  it('records a unit with invalid output as failed, goes on, and retries only that unit next time', async () => {
    const kb = openKb(join(dir, 'kb.sqlite'));
    for (const f of CORPUS_FILES) addCorpusDocument(kb, f);
    const badSummary = CHUNK_SCRIPT['ulisse.it.txt'][1]!.summary;
    const result = await job(
      kb,
      scripted({ breakOn: [{ prompt: 'mder/map', when: (v) => v.chunk === badSummary }] }),
    ).run();
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0]).toMatchObject({ stage: 'map', code: 'LLM_OUTPUT_INVALID' });
    const docs = snapshot(kb).documents;
    const it = docs.find((d) => d.title === 'ulisse.it.txt')!;
    expect(it.status).toBe('error');
    expect(it.error).toMatch(/^map: chunk 1 of ".*ulisse\.it\.txt": /);
    expect(docs.filter((d) => d.status === 'indexed')).toHaveLength(3);
    expect(snapshot(kb).triples.some((t) => t.includes('WOVE'))).toBe(false);
    expect(result.stages.map).toMatchObject({ units: 7, failed: 1 });

    const retry = scripted();
    const second = await job(kb, retry).run();
    expect(second.failures).toEqual([]);
    expect(retry.callsOf('mder/map')).toHaveLength(1);
    expect(retry.callsOf('ingest/summarise')).toHaveLength(0);
    expect(snapshot(kb).documents.every((d) => d.status === 'indexed')).toBe(true);
    expect(snapshot(kb).triples.some((t) => t.startsWith('Penelope | WOVE | Shroud'))).toBe(true);
    kb.close();
  });

  it('a failed reduce batch is recorded and its entities stay stale for the next run', async () => {
    const kb = openKb(join(dir, 'kb.sqlite'));
    addCorpusDocument(kb, 'penelope.fr.txt');
    const result = await job(kb, scripted({ breakOn: [{ prompt: 'mder/reduce', when: () => true }] })).run();
    expect(result.failures.map((f) => [f.stage, f.code])).toEqual([['reduce', 'LLM_OUTPUT_INVALID']]);
    expect(kb.graph.countEntities({ stale: true })).toBe(1); // Pénélope; Icarius and Ulysses have one fact each
    await job(kb, scripted()).run();
    expect(kb.graph.countEntities({ stale: true })).toBe(0);
    kb.close();
  });

  it('an entity whose triples share one description takes it as its summary without a reduce call; one with two is reduced', async () => {
    const kb = openKb(join(dir, 'kb.sqlite'));
    const born = 'Kenji Treschuk was born in Honolulu in 1982.';
    const capital = 'Honolulu is the capital of Hawaii.';
    const text = `${born} ${capital}`;
    addPassageDocument(kb, { path: 'treschuk.txt', title: 'Treschuk', text });
    const triple = (subject: string, relation: string, object: string, objectType: string) => ({
      subject,
      subjectType: subject === 'Honolulu' ? 'City' : 'Person',
      relation,
      object,
      objectType,
    });
    const llm = new ScriptedLlm([
      { prompt: 'ingest/summarise', reply: () => ({ text }) },
      {
        prompt: 'mder/map',
        reply: () => ({
          triples: [
            triple('Kenji Treschuk', 'BORN_IN', 'Honolulu', 'City'),
            triple('Kenji Treschuk', 'BORN_IN_YEAR', '1982', 'Year'),
            triple('Honolulu', 'CAPITAL_OF', 'Hawaii', 'State'),
          ],
        }),
      },
      NO_MERGES_RULE,
      {
        prompt: 'mder/enrich',
        reply: (v) => ({
          descriptions: [...v.triples!.matchAll(/^(\d+)\. (.+) \| (\S+) \| (.+)$/gm)].map(([, id, s, r, t]) => ({
            id: Number(id),
            relation: r!,
            object: t!,
            description: s === 'Honolulu' ? capital : born,
          })),
        }),
      },
      {
        prompt: 'mder/reduce',
        reply: (v) => ({
          summaries: reduceBlocks(v.entities!).map((b) => ({
            id: b.id,
            name: b.name,
            summary: scriptedSummary(b.name, b.type, b.facts),
          })),
        }),
      },
    ]);
    const result = await job(kb, llm).run();
    expect(result.failures).toEqual([]);
    expect(reducedNames(llm)).toEqual(['Honolulu']);
    expect(kb.graph.findEntityByName('Kenji Treschuk')?.summary).toBe(`Kenji Treschuk (Person): ${born}`);
    const honolulu = kb.graph.findEntityByName('Honolulu')?.summary;
    expect([born, capital].every((fact) => honolulu?.includes(fact))).toBe(true);
    kb.close();
  });

  it('cancel then resume repeats no finished LLM call and ends with the same KB', async () => {
    const reference = openKb(join(dir, 'ref.sqlite'));
    for (const f of CORPUS_FILES) addCorpusDocument(reference, f);
    const full = scripted();
    await job(reference, full).run();

    const kb = openKb(join(dir, 'kb.sqlite'));
    for (const f of CORPUS_FILES) addCorpusDocument(kb, f);
    const controller = new AbortController();
    const first = scripted();
    const run1 = job(kb, new CachingLlm(first, { store: kb.jobState.callCache }), {
      signal: controller.signal,
      progressIntervalMs: 0,
      onProgress: (p) => {
        if (p.stage === 'map' && p.done === 3) controller.abort();
      },
    }).run();
    await expect(run1).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(snapshot(kb).documents.some((d) => d.status === 'indexing')).toBe(true);

    const second = scripted();
    await job(kb, new CachingLlm(second, { store: kb.jobState.callCache })).run();
    const key = (c: { prompt: { name: string; user: string } }) => `${c.prompt.name}\n${c.prompt.user}`;
    const made = [...first.calls, ...second.calls].map(key);
    expect(new Set(made).size).toBe(made.length);
    expect(made.sort()).toEqual(full.calls.map(key).sort());
    expect(first.calls.length).toBeGreaterThan(7);
    expect(snapshot(kb)).toEqual(snapshot(reference));
    kb.close();
    reference.close();
  });

  it('resumes after the process is killed mid-job (SIGKILL) and ends with the same KB as an uninterrupted run', async () => {
    const reference = openKb(join(dir, 'ref.sqlite'));
    for (const f of CORPUS_FILES) addCorpusDocument(reference, f);
    const full = scripted();
    await job(reference, full).run();

    const file = join(dir, 'kb.sqlite');
    const kb = openKb(file);
    for (const f of CORPUS_FILES) addCorpusDocument(kb, f);
    kb.close();

    const child = (latencyMs: number, killWhen?: (line: string) => boolean) =>
      new Promise<{ lines: string[]; signal: NodeJS.Signals | null }>((resolve, reject) => {
        const proc = spawn(
          process.execPath,
          ['--import', 'tsx', join(import.meta.dirname, 'support/indexCorpusChild.ts'), file, String(latencyMs)],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        const lines: string[] = [];
        let err = '';
        proc.stderr.on('data', (d) => (err += d));
        proc.stdout.on('data', (d: Buffer) => {
          for (const line of d.toString().split('\n').filter(Boolean)) {
            lines.push(line);
            if (killWhen?.(line)) proc.kill('SIGKILL');
          }
        });
        proc.on('error', reject);
        proc.on('close', (code, signal) =>
          code === 0 || signal === 'SIGKILL'
            ? resolve({ lines, signal })
            : reject(new Error(`child exited ${code}: ${err}`)),
        );
      });

    const killed = await child(15, (line) => line === 'enrich 2/7');
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.lines.some((l) => l.startsWith('done'))).toBe(false);

    const mid = openKb(file);
    const cached = mid.jobState.cacheStats().entries;
    mid.close();
    expect(cached).toBeGreaterThanOrEqual(16);

    const resumed = await child(0);
    const done = resumed.lines.find((l) => l.startsWith('done '))!;
    // Every call that finished before the kill came from the cache.
    expect(Number(done.split(' ')[1])).toBe(full.calls.length - cached);

    const final = openKb(file);
    expect(snapshot(final)).toEqual(snapshot(reference));
    final.close();
    reference.close();
  });
});

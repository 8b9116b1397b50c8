import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  STRATEGIES,
  type Answer,
  type DocumentPage,
  type HistoryEntry,
  type JobProgress,
  type KbInfo,
} from '../../src-main/engine/api/contract.js';
import type { Engine } from '../../src-main/engine/api/Engine.js';
import { KnowledgeBase } from '../../src-main/engine/kb/index.js';
import type { IndexingResult } from '../../src-main/engine/mder/IndexingJob.js';
import { tinyBertDir } from '../fixtures/tinyBert.js';
import { tinyLlamaPath } from '../fixtures/tinyLlama.js';
import { call, runJobToEnd, tempEngine } from '../support/tempEngine.js';
import { countStatements } from '../support/independentRdf.js';

// The whole user path on the real runtimes, through the Api only: create a KB, add an English and
// an Italian document, index them with the fixture GGUF and the ONNX embedder, ask with every
// strategy, export RDF. The random-weight model writes nonsense, so what is checked is that every
// stage and strategy runs and the KB stays consistent, never what the answers say. Which replies
// come out valid is up to the model and, with parallel sequences, to how llama.cpp batches them:
// one sequence and one unit at a time keep the outcome the same however busy the machine is.
const KB = 'ithaca';
const QUESTION = 'Chi era la moglie del re di Itaca?';
let engine: Engine;
let dispose: () => Promise<void>;
let dataDir: string;
let docsDir: string;
let indexed: KbInfo;

beforeAll(async () => {
  const [ggufPath, bertDir] = await Promise.all([tinyLlamaPath(), tinyBertDir()]);
  ({ engine, dispose, dataDir } = await tempEngine());
  docsDir = mkdtempSync(join(tmpdir(), 'polyhop-api-pipeline-docs-'));
  writeFileSync(
    join(docsDir, 'odysseus.en.txt'),
    'Odysseus was the king of Ithaca. He married Penelope, the daughter of Icarius. ' +
      'After the fall of Troy, Odysseus sailed home for ten years. Their son Telemachus searched for him in Pylos and Sparta.\n',
  );
  writeFileSync(
    join(docsDir, 'penelope.it.txt'),
    'Penelope era la moglie di Ulisse, re di Itaca. Per vent’anni attese il ritorno del marito. ' +
      'Tesseva di giorno una tela e la disfaceva di notte per ingannare i Proci. Suo figlio era Telemaco.\n',
  );
  await call(engine, 'models:load', { role: 'embedding', path: bertDir, threads: 1 });
  // 4096: the fixture's tokenizer is character-level, so a prompt takes ~4× the tokens it would on a real model.
  await call(engine, 'models:load', {
    role: 'generation',
    path: ggufPath,
    threads: 1,
    contextSize: 4096,
    sequences: 1,
  });
  // Small budgets keep the tiny model fast; the JSON grammars still shape every structured step.
  await call(engine, 'system:setSettings', {
    settings: {
      concurrency: 1,
      strategyParams: {
        'shared.stepMaxTokens': 1024,
        'shared.answerMaxTokens': 24,
        'shared.evidenceMaxTokens': 600,
        'hyp.maxCandidates': 10,
      },
    },
  });
});

afterAll(async () => {
  await dispose?.();
  if (docsDir) rmSync(docsDir, { recursive: true, force: true });
});

describe('the user path on the fixture models', () => {
  it('indexes two documents through every stage and leaves a consistent KB', async () => {
    await call(engine, 'kb:create', { name: KB, description: 'Odyssey, English and Italian' });
    const added = await call<{ added: unknown[]; errors: unknown[] }>(engine, 'docs:add', {
      kb: KB,
      paths: [join(docsDir, 'odysseus.en.txt'), join(docsDir, 'penelope.it.txt')],
    });
    expect(added.errors).toEqual([]);
    expect(added.added).toHaveLength(2);

    const stages = new Set<string>();
    const off = engine.onEvent((e) => {
      if (e.name === 'job:progress' && e.payload.kind === 'index') stages.add((e.payload as JobProgress).stage);
    });
    const job = await runJobToEnd(engine, 'index:start', { kb: KB });
    off();
    expect(job.error).toBeNull();
    expect(job.status).toBe('done');
    expect([...stages]).toEqual(['ingest', 'preprocess', 'map', 'disambiguate', 'enrich', 'reduce', 'embed', 'rdf']);

    const result = job.result as IndexingResult & { ingestFailures: unknown[] };
    expect(result.ingestFailures).toEqual([]);
    // A unit may fail (recorded with stage, unit and reason, never a crash), but under the JSON
    // grammar a reply is only invalid when it ran out of tokens, or when its entry's content key
    // names another item than the one it answers (the random-weight model writes any names), so a
    // Disambiguate pair is left undecided, to be asked again by the next run.
    for (const f of result.failures) {
      expect(f.code, `${f.stage} ${f.unit}: ${f.message}`).toMatch(/^(LLM_OUTPUT_INVALID|MODEL_ERROR)$/);
      expect(f.unit).toMatch(/\S/);
      if (f.code === 'LLM_OUTPUT_INVALID')
        expect(f.message).toMatch(/stopped at maxTokens|named another item|no decision for this pair/);
    }
    for (const stage of ['preprocess', 'map'] as const) expect(result.stages[stage]!.calls, stage).toBeGreaterThan(0);

    const docs = await call<DocumentPage>(engine, 'docs:list', { kb: KB });
    expect(docs.total).toBe(2);
    for (const d of docs.rows) {
      expect(['indexed', 'error']).toContain(d.status);
      expect(d.status === 'error').toBe(d.error !== null);
      expect(d.status === 'error').toBe(
        result.failures.some((f) => f.unit.includes(d.path) || f.unit.includes(d.title)),
      );
      expect(d.chunkCount).toBeGreaterThan(0);
    }
    expect(new Set(docs.rows.map((d) => d.language))).toEqual(new Set(['en', 'it']));

    indexed = await call<KbInfo>(engine, 'kb:info', { kb: KB });
    expect(indexed.documentCount).toBe(2);
    expect(indexed.chunkCount).toBe(docs.rows.reduce((n, d) => n + d.chunkCount, 0));
    expect(indexed.tripleCount).toBe(docs.rows.reduce((n, d) => n + d.tripleCount, 0));
    expect(indexed.embedder?.dimension).toBe(64);

    // A second, read-only connection sees the same KB, undamaged, with a vector for every row.
    const file = engine.kbs.registry.get(KB).file;
    const reader = KnowledgeBase.open(file, { readonly: true });
    try {
      const stats = reader.stats();
      expect(stats).toMatchObject({
        documents: 2,
        chunks: indexed.chunkCount,
        entities: indexed.entityCount,
        triples: indexed.tripleCount,
        relations: indexed.relationCount,
      });
      expect(stats.vectors.chunk).toBe(stats.chunks);
      expect(stats.vectors.entity_name).toBe(stats.entities);
      expect(stats.vectors.triple).toBe(stats.triples);
      for (const t of reader.graph.iterateTriples()) {
        expect(reader.graph.getEntity(t.sourceId)).toBeDefined();
        expect(reader.graph.getEntity(t.targetId)).toBeDefined();
      }
    } finally {
      reader.close();
    }
    // Sized by work (two short documents; the Api's indexing budgets are the product's): ~1.5 min
    // on a quiet 2-core machine, ~7 min with the load at 19; the limit only catches a hang. The
    // tests below read this KB.
  }, 900_000);

  it.each(STRATEGIES)(
    '%s answers through qa:ask with a trace',
    async (strategy) => {
      // What the Ask screen shows while the job runs: tokens appended, a reset starting over.
      const streamed = new Map<string, string>();
      const off = engine.onEvent((e) => {
        if (e.name === 'qa:token')
          streamed.set(
            e.payload.jobId,
            (e.payload.reset ? '' : (streamed.get(e.payload.jobId) ?? '')) + e.payload.text,
          );
      });
      const job = await runJobToEnd(engine, 'qa:ask', { kb: KB, question: QUESTION, strategy });
      off();
      expect(job.error).toBeNull();
      expect(job.status).toBe('done');
      const answer = job.result as Answer;
      // The answer is kept in the KB's history.
      const [entry] = await call<HistoryEntry[]>(engine, 'qa:history', { kb: KB, limit: 1 });
      expect(entry!.answer).toEqual(answer);
      expect(answer).toMatchObject({ question: QUESTION, strategy, retrievalOnly: false, questionLanguage: 'it' });
      expect(answer.text.trim()).not.toBe('');
      expect((streamed.get(job.jobId) ?? '').trim()).toBe(answer.text);
      expect(answer.usage.llmCalls).toBeGreaterThan(0);
      expect(answer.trace.length).toBeGreaterThan(0);
      expect(answer.trace.at(-1)!.step).toBe('answer');
      expect(answer.trace.reduce((n, s) => n + s.llmCalls, 0)).toBe(answer.usage.llmCalls);
      if (strategy !== 'llm-only') expect(answer.trace.length).toBeGreaterThan(1);
      for (const e of answer.evidence) for (const c of e.citations) expect(c.endOffset).toBeGreaterThan(c.startOffset);
      // The JSON grammar keeps every structured reply valid; one may only fail by running out of tokens.
      for (const step of answer.trace) {
        const invalid = ((step.detail as { invalid?: { message: string }[] } | null)?.invalid ?? []).map(
          (i) => i.message,
        );
        for (const message of invalid) expect(message, step.step).toMatch(/stopped at maxTokens/);
      }
      // Sized by work (one question, small budgets): seconds on an idle machine; the limit only catches a hang.
    },
    300_000,
  );

  it.each(['dr', 'vector'] as const)(
    '%s in retrieval-only mode returns ranked evidence with citations',
    async (strategy) => {
      const job = await runJobToEnd(engine, 'qa:ask', { kb: KB, question: QUESTION, strategy, retrievalOnly: true });
      expect(job.error).toBeNull();
      expect(job.status).toBe('done');
      const answer = job.result as Answer;
      expect(answer.retrievalOnly).toBe(true);
      expect(answer.usage.llmCalls).toBe(0);
      expect(answer.evidence.length).toBeGreaterThan(0);
      expect(answer.evidence.some((e) => e.citations.length > 0)).toBe(true);
      expect(answer.text.trim()).not.toBe('');
    },
  );

  it('exports the KB as Turtle that an independent parser reads', async () => {
    const out = join(dataDir, 'export.ttl');
    const job = await runJobToEnd(engine, 'rdf:export', {
      kb: KB,
      format: 'turtle',
      scope: { kind: 'all' },
      outputPath: out,
    });
    expect(job.error).toBeNull();
    const { quads } = job.result as { quads: number };
    expect(quads).toBeGreaterThan(0);
    expect(await countStatements(out)).toBe(quads);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LlamaCppLlm } from '../../src-main/engine/models/LlamaCppLlm.js';
import { LlamaCppEmbedder } from '../../src-main/engine/models/LlamaCppEmbedder.js';
import { CachingLlm } from '../../src-main/engine/models/CachingLlm.js';
import { IndexingJob, type IndexingProgress } from '../../src-main/engine/mder/index.js';
import { tinyLlamaPath } from '../fixtures/tinyLlama.js';
import { addCorpusDocument } from '../support/corpusScript.js';
import { openKb, prompts } from '../unit/mder/support/corpusKb.js';

// The random-weight model writes nonsense under the JSON grammars: the point is that every stage
// runs for real (grammar, sequences, embeddings, SQLite, FTS) and leaves a consistent KB. Which
// replies come out valid is up to the model (and, with parallel sequences, to how llama.cpp
// batches them), so one sequence keeps the outcome the same however busy the machine is, and the
// assertions hold for every outcome: each unit either wrote its result or recorded its failure.
let llm: LlamaCppLlm;
let embedder: LlamaCppEmbedder;
let dir: string;

beforeAll(async () => {
  const modelPath = await tinyLlamaPath();
  llm = await LlamaCppLlm.create({ path: modelPath, threads: 1, sequences: 1, contextSize: 4096 });
  embedder = await LlamaCppEmbedder.create({ modelPath, threads: 1, contextSize: 512 });
  dir = mkdtempSync(join(tmpdir(), 'polyhop-mder-runtime-'));
});

afterAll(async () => {
  await llm?.dispose();
  await embedder?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('MDER on the tiny GGUF', () => {
  it('runs every stage and leaves a consistent KB', async () => {
    const kb = openKb(join(dir, 'kb.sqlite'));
    addCorpusDocument(kb, 'penelope.fr.txt');
    addCorpusDocument(kb, 'telemaco.es.txt');
    const progress: IndexingProgress[] = [];
    const result = await new IndexingJob(kb, new CachingLlm(llm, { store: kb.jobState.callCache }), {
      prompts,
      embedder,
      onProgress: (p) => progress.push(p),
      preprocess: { maxTokens: 96 },
      map: { maxTokens: 800 },
      enrich: { maxTokensPerTriple: 64 },
      // Send every neighbour pair and every entity to the model, so those stages run for real too.
      disambiguate: { threshold: -1 },
      reduce: { maxTokensPerEntity: 96, copySingleFact: false },
      updateRdfView: async () => {},
    }).run();

    expect([...new Set(progress.map((p) => p.stage))]).toEqual([
      'preprocess',
      'map',
      'disambiguate',
      'enrich',
      'reduce',
      'embed',
      'rdf',
    ]);
    expect(progress.filter((p) => p.stage === 'preprocess').at(-1)!.llmCalls).toBe(2);
    for (const f of result.failures) expect(f.code).toMatch(/^(LLM_OUTPUT_INVALID|MODEL_ERROR)$/);
    // Every LLM stage asked the model for each unit it had (a fresh KB: nothing cached) and
    // counted as failed exactly the units recorded as failures.
    const stats = kb.stats();
    for (const stage of ['preprocess', 'map', 'disambiguate', 'enrich', 'reduce'] as const) {
      const s = result.stages[stage]!;
      expect(s.calls > 0, stage).toBe(s.units > 0);
      expect(s.failed, stage).toBe(result.failures.filter((f) => f.stage === stage).length);
    }
    // Map had every chunk; what it extracted decides what the later stages had to do.
    expect(result.stages.map!.units).toBe(stats.chunks);
    expect(result.stages.enrich!.units > 0).toBe(stats.triples > 0);
    expect(result.stages.reduce!.units > 0).toBe(stats.triples > 0);
    if (stats.entities >= 2) expect(result.stages.disambiguate!.units).toBeGreaterThan(0);
    console.log(
      `map: ${result.stages.map!.units - result.stages.map!.failed}/${result.stages.map!.units} valid; ${stats.entities} entities, ${stats.triples} triples`,
    );

    // Consistency: statuses say what happened, every row has its vector, triples point at entities.
    const docs = [...kb.documents.iterateDocuments()];
    for (const d of docs) {
      expect(d.status === 'indexed' || d.status === 'error').toBe(true);
      expect(d.status === 'error').toBe(result.failures.some((f) => f.unit.includes(d.path)));
    }
    expect(stats.vectors.chunk).toBe(stats.chunks);
    expect(stats.vectors.entity_name).toBe(stats.entities);
    expect(stats.vectors.triple).toBe(stats.triples);
    const entities = [...kb.graph.iterateEntities()];
    expect(stats.vectors.entity_summary).toBe(entities.filter((e) => e.summary).length);
    for (const t of kb.graph.iterateTriples()) {
      expect(kb.graph.getEntity(t.sourceId)).toBeDefined();
      expect(kb.graph.getEntity(t.targetId)).toBeDefined();
    }
    if (!result.failures.some((f) => f.stage === 'reduce')) expect(entities.every((e) => !e.summaryStale)).toBe(true);

    // A second run finds nothing left but what failed, and the cache answers what finished.
    const again = await new IndexingJob(kb, new CachingLlm(llm, { store: kb.jobState.callCache }), {
      prompts,
      embedder,
      preprocess: { maxTokens: 96 },
      map: { maxTokens: 800 },
    }).run();
    expect(again.stages.preprocess!.units).toBe(result.failures.filter((f) => f.stage === 'preprocess').length);
    kb.close();
    // Sized by work (two short documents, small token budgets, one sequence): ~25 s on a 2-core
    // machine with the load at 19; the limit only catches a hang.
  }, 600_000);
});

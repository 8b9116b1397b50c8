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
// runs for real (grammar, sequences, embeddings, SQLite, FTS) and leaves a consistent KB.
let llm: LlamaCppLlm;
let embedder: LlamaCppEmbedder;
let dir: string;

beforeAll(async () => {
  const modelPath = await tinyLlamaPath();
  llm = await LlamaCppLlm.create({ path: modelPath, threads: 1, sequences: 2, contextSize: 4096 });
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
    const result = await new IndexingJob(kb, new CachingLlm(llm, { store: kb.callCache }), {
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

    expect([...new Set(progress.map((p) => p.stage))]).toEqual(['preprocess', 'map', 'disambiguate', 'enrich', 'reduce', 'embed', 'rdf']);
    expect(progress.filter((p) => p.stage === 'preprocess').at(-1)!.llmCalls).toBe(2);
    // The seeded model yields at least one valid map reply, so every LLM stage made a real call.
    for (const stage of ['preprocess', 'map', 'disambiguate', 'enrich', 'reduce'] as const) expect(result.stages[stage]!.calls, stage).toBeGreaterThan(0);
    for (const f of result.failures) expect(f.code).toMatch(/^(LLM_OUTPUT_INVALID|MODEL_ERROR)$/);

    // Consistency: statuses say what happened, every row has its vector, triples point at entities.
    const docs = [...kb.iterateDocuments()];
    for (const d of docs) {
      expect(d.status === 'indexed' || d.status === 'error').toBe(true);
      expect(d.status === 'error').toBe(result.failures.some((f) => f.unit.includes(d.path)));
    }
    const stats = kb.stats();
    expect(stats.vectors.chunk).toBe(stats.chunks);
    expect(stats.vectors.entity_name).toBe(stats.entities);
    expect(stats.vectors.triple).toBe(stats.triples);
    const entities = [...kb.iterateEntities()];
    expect(stats.vectors.entity_summary).toBe(entities.filter((e) => e.summary).length);
    for (const t of kb.iterateTriples()) {
      expect(kb.getEntity(t.sourceId)).toBeDefined();
      expect(kb.getEntity(t.targetId)).toBeDefined();
    }
    if (!result.failures.some((f) => f.stage === 'reduce')) expect(entities.every((e) => !e.summaryStale)).toBe(true);

    // A second run finds nothing left but what failed, and the cache answers what finished.
    const again = await new IndexingJob(kb, new CachingLlm(llm, { store: kb.callCache }), { prompts, embedder, preprocess: { maxTokens: 96 }, map: { maxTokens: 800 } }).run();
    expect(again.stages.preprocess!.units).toBe(result.failures.filter((f) => f.stage === 'preprocess').length);
    kb.close();
  });
});

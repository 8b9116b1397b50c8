import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { STRATEGIES } from '../../src-main/engine/api/contract.js';
import { sha256Hex } from '../../src-main/engine/base/hash.js';
import { KnowledgeBase } from '../../src-main/engine/kb/index.js';
import { IndexingJob } from '../../src-main/engine/mder/IndexingJob.js';
import { CachingLlm } from '../../src-main/engine/models/CachingLlm.js';
import { LlamaCppLlm } from '../../src-main/engine/models/LlamaCppLlm.js';
import type {
  Llm,
  LlmCallOptions,
  LlmJsonResult,
  LlmTextResult,
  RenderedPrompt,
} from '../../src-main/engine/models/Llm.js';
import { PromptLibrary } from '../../src-main/engine/models/PromptLibrary.js';
import { reasoningStepOf, stepReasons } from '../../src-main/engine/models/reasoningPolicy.js';
import { ask, resolveQaSettings, type QaContext } from '../../src-main/engine/qa/index.js';
import { NgramEmbedder } from '../support/NgramEmbedder.js';
import { TEMPLATED_MODELS, templatedLlamaPath, type TemplatedModelSpec } from '../fixtures/templatedLlama.js';

/**
 * The whole pipeline per catalog generation model's real chat template and tokenizer (tiny
 * steered GGUFs, see test/fixtures/templatedLlama.ts), through the real node-llama-cpp, the real
 * IndexingJob and every answering strategy, with the product's default reasoning policy: indexing
 * writes triples, fails no unit, describes every triple and summarises every entity, no structured
 * reply fails its schema, and a call writes reasoning tokens exactly when its step's policy reasons
 * (or, for a template without a switch, always).
 */
const prompts = new PromptLibrary(join(import.meta.dirname, '../../prompts'));
const TEXT = 'Odysseus was the king of Ithaca. He married Penelope, the daughter of Icarius.';
const QUESTION = 'Who was the wife of the king of Ithaca?';
/** Asked in Italian of the English document, DaPT takes both paths: a fused node is judged and, when the judge does not accept, regenerated. */
const QUESTION_IT = 'Chi era la moglie del re di Itaca?';
/** The product's default policy: the Api passes Settings.reasoning, which defaults to it. */
const POLICY = {};

interface Call {
  prompt: string;
  reasoningTokens: number;
  /** The reply's failure (schema, tokens), or undefined. */
  error?: string;
}

/** Passes every call to the real model and notes what it cost and whether it failed. */
class RecordingLlm implements Llm {
  readonly calls: Call[] = [];
  constructor(readonly inner: LlamaCppLlm) {}
  get identity(): string {
    return this.inner.identity;
  }
  get parallelism(): number {
    return this.inner.parallelism;
  }
  get contextTokens(): number {
    return this.inner.contextTokens;
  }
  get reasons(): boolean {
    return this.inner.reasons;
  }
  countTokens(text: string): number {
    return this.inner.countTokens(text);
  }
  async generateText(prompt: RenderedPrompt, options?: LlmCallOptions): Promise<LlmTextResult> {
    return this.#record(prompt, () => this.inner.generateText(prompt, options));
  }
  async generateJson<S extends z.ZodType>(
    prompt: RenderedPrompt,
    schema: S,
    options?: LlmCallOptions,
  ): Promise<LlmJsonResult<z.infer<S>>> {
    return this.#record(prompt, () => this.inner.generateJson(prompt, schema, options));
  }
  async dispose(): Promise<void> {}
  async #record<R extends { usage: { reasoningTokens?: number } }>(
    prompt: RenderedPrompt,
    run: () => Promise<R>,
  ): Promise<R> {
    try {
      const result = await run();
      this.calls.push({ prompt: prompt.name, reasoningTokens: result.usage.reasoningTokens ?? 0 });
      return result;
    } catch (error) {
      const usage = (error as { details?: { usage?: { reasoningTokens?: number } } }).details?.usage;
      this.calls.push({
        prompt: prompt.name,
        reasoningTokens: usage?.reasoningTokens ?? 0,
        error: (error as Error).message,
      });
      throw error;
    }
  }
}

const CASES: [string, TemplatedModelSpec][] = [
  ['Qwen3-8B', TEMPLATED_MODELS.qwen3],
  ['Qwen3-4B-Instruct-2507', TEMPLATED_MODELS.qwen3Instruct],
  ['gpt-oss-20b', TEMPLATED_MODELS.gptOss],
  ['QwQ-32B (Qwen variation 3.5: the thought opens at response start)', TEMPLATED_MODELS.qwq],
];

describe.each(CASES)('%s: index one document and answer with every strategy (threads: 1)', (_label, spec) => {
  let llm: LlamaCppLlm;
  let recorder: RecordingLlm;
  let kb: KnowledgeBase;
  let dir: string;
  const embedder = new NgramEmbedder(64);

  /** Whether a call of this prompt should write a thought: the policy's, unless the template cannot switch it off. */
  const shouldReason = (prompt: string): boolean => {
    if (!llm.reasons) return false;
    const step = reasoningStepOf(prompt);
    return !llm.chatReasoning.switchable || (step !== undefined && stepReasons(step, POLICY));
  };
  const checkCalls = (calls: readonly Call[]): void => {
    for (const c of calls) {
      expect(c.error, `${c.prompt}: ${c.error}`).toBeUndefined();
      expect(c.reasoningTokens > 0, `${c.prompt}: ${c.reasoningTokens} reasoning tokens`).toBe(shouldReason(c.prompt));
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'polyhop-catalog-pipeline-'));
    llm = await LlamaCppLlm.create({
      path: await templatedLlamaPath(spec),
      threads: 1,
      sequences: 1,
      contextSize: 4096,
      gpu: false,
    });
    recorder = new RecordingLlm(llm);
    kb = KnowledgeBase.open(join(dir, 'kb.sqlite'), {
      create: { name: 'odyssey', baseIri: 'https://polyhop.invalid/odyssey/' },
    });
    const doc = kb.documents.addDocument({
      path: join(dir, 'odysseus.txt'),
      title: 'odysseus.txt',
      hash: sha256Hex(Buffer.from(TEXT)),
      mime: 'text/plain',
      size: TEXT.length,
      language: 'en',
    });
    kb.documents.replaceChunks(doc.id, [
      { ord: 0, text: TEXT, language: 'en', startOffset: 0, endOffset: TEXT.length, page: null },
    ]);
  }, 300_000);
  afterAll(async () => {
    kb?.close();
    await llm?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('indexing writes triples, fails no unit, summarises every entity, every reply valid, reasoning as the policy says', async () => {
    const result = await new IndexingJob(
      kb,
      new CachingLlm(recorder, { store: kb.jobState.callCache, reasoning: POLICY }),
      {
        prompts,
        embedder,
        // Every neighbour pair and every entity goes to the model, so each LLM stage runs.
        disambiguate: { threshold: -1 },
        reduce: { copySingleFact: false },
        updateRdfView: async () => {},
      },
    ).run();
    // The tiny model copies nothing from its prompt (see JSON_CHAIN), yet where a reply names its
    // item by content (Reduce's entity name, Enrich's object, a Disambiguate pair's names) the
    // grammar lets it write only the batch's names, and the content check asks a drifted one
    // again alone, where the grammar leaves one name: no unit fails, every entity is summarised
    // and every triple described.
    expect(result.failures.map((f) => `${f.stage} ${f.unit}: ${f.message}`)).toEqual([]);
    expect(kb.stats().triples).toBeGreaterThan(0);
    const entities = kb.graph.listEntities();
    expect(entities.length).toBeGreaterThan(1);
    for (const e of entities) {
      expect(e.summary?.trim(), `summary of ${e.name}`).toBeTruthy();
      for (const t of kb.graph.triplesOfEntity(e.id, 'out'))
        expect(t.description?.trim(), `description of ${t.sourceName} ${t.relation} ${t.targetName}`).toBeTruthy();
    }
    const asked = new Set(recorder.calls.map((c) => reasoningStepOf(c.prompt)));
    expect([...asked].sort()).toEqual(['disambiguate', 'enrich', 'map', 'preprocess', 'reduce']);
    checkCalls(recorder.calls);
    // Sized by work (one chunk, a few calls): seconds on a quiet machine; the limit only catches a hang.
  }, 600_000);

  it.each(STRATEGIES)(
    '%s answers without a schema failure, reasoning where the policy says',
    async (strategy) => {
      const ctx: QaContext = {
        kb,
        llm: new CachingLlm(recorder, { store: kb.jobState.callCache, reasoning: POLICY }),
        embedder,
        prompts,
        settings: resolveQaSettings({
          'shared.stepMaxTokens': 96,
          'shared.answerMaxTokens': 48,
          'shared.reasoningMaxTokens': 64,
          'shared.evidenceMaxTokens': 600,
        }),
      };
      const before = recorder.calls.length;
      const answer = await ask(ctx, QUESTION, { strategy, answerLanguage: 'en' });
      const calls = recorder.calls.slice(before);
      // Every strategy ends in an answer step, whose policy reasons.
      expect(calls.map((c) => reasoningStepOf(c.prompt))).toContain('answer');
      checkCalls(calls);
      for (const step of answer.trace)
        expect((step.detail as { invalid?: unknown[] } | null)?.invalid, step.step).toBeUndefined();
      expect(answer.text.trim()).not.toBe('');
      if (strategy === 'dr') {
        // The decomposition prompt steers the tiny model to a placeholder ("Yes YES ?X", see
        // DECOMPOSE_MARKERS): DR resolves it under the real template, reasoning as the policy says
        // (checkCalls), and grounds the value in the entity Map wrote.
        const detail = (name: string) =>
          answer.trace.find((t) => t.step === name)?.detail as Record<string, unknown> | undefined;
        expect(detail('decompose')?.triples).toEqual([{ subject: 'Yes', relation: 'Yes', object: '?X' }]);
        expect(calls.map((c) => c.prompt)).toContain('qa/dr-resolve');
        expect(detail('resolve')).toMatchObject({ placeholder: '?X', anchor: 'Yes', value: 'No' });
        expect(detail('similarity top-up')?.resolved).toEqual({ '?X': 'No' });
      }
    },
    300_000,
  );

  // One template is enough to reach DaPT's judge and regeneration (runtime tests are slow): the
  // thinking one with a switch, whose policy reasons there.
  if (spec === TEMPLATED_MODELS.qwen3)
    it('dapt on a question in another language judges and regenerates a fused node, reasoning where the policy says', async () => {
      const ctx: QaContext = {
        kb,
        llm: new CachingLlm(recorder, { store: kb.jobState.callCache, reasoning: POLICY }),
        embedder,
        prompts,
        settings: resolveQaSettings({
          'shared.stepMaxTokens': 96,
          'shared.answerMaxTokens': 48,
          'shared.reasoningMaxTokens': 64,
          'shared.evidenceMaxTokens': 600,
        }),
      };
      const before = recorder.calls.length;
      const answer = await ask(ctx, QUESTION_IT, { strategy: 'dapt', answerLanguage: 'en' });
      const calls = recorder.calls.slice(before);
      const asked = calls.map((c) => c.prompt);
      expect(asked).toContain('qa/dapt-judge');
      expect(asked).toContain('qa/dapt-regenerate');
      checkCalls(calls);
      for (const step of answer.trace)
        expect((step.detail as { invalid?: unknown[] } | null)?.invalid, step.step).toBeUndefined();
    }, 300_000);
});

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { StrategyName } from '../../src-main/engine/api/contract.js';
import { quantileOf } from '../../src-main/engine/base/quantile.js';
import { KnowledgeBase } from '../../src-main/engine/kb/KnowledgeBase.js';
import type { Embedder, EmbedOptions } from '../../src-main/engine/models/Embedder.js';
import { LLM_CALL_DEFAULTS } from '../../src-main/engine/models/Llm.js';
import { PromptLibrary } from '../../src-main/engine/models/PromptLibrary.js';
import { REASONING_STEPS } from '../../src-main/engine/models/reasoningPolicy.js';
import { TransformersEmbedder } from '../../src-main/engine/models/TransformersEmbedder.js';
import { ask, estimateQuestion, MEASURED_QUESTION_TOKENS, type QaContext } from '../../src-main/engine/qa/index.js';
import { e5ShapedBertDir } from '../fixtures/e5ShapedBert.js';
import { NgramEmbedder } from '../support/NgramEmbedder.js';
import { ScriptedLlm } from '../support/ScriptedLlm.js';
import { seededRandom } from '../unit/kb/kbFixtures.js';
import { ApproximateSearchLog } from './support/approximateSearchLog.js';
import { buildKb, entityNames } from './support/qaBenchKb.js';
import { qaBenchRules } from './support/qaBenchRules.js';
import { RotatedEmbedder } from './support/RotatedEmbedder.js';

/**
 * Non-LLM time per question of every strategy at `--entities` entities: retrieval, fusion, prompt
 * rendering, bookkeeping and the query embeddings, with a zero-latency scripted model whose own
 * time (it tokenizes with Qwen3's tokenizer) is taken out. Questions alternate English and Italian
 * so DaPT's bilingual path runs. Plans have the sizes a real decomposition gives (see
 * qaBenchRules). Also printed: query embeddings per question, recall@10 of every approximate
 * search (sign-bit prefilter, pruned BM25) against an exact one on the same queries, and the LLM
 * time a question would take on an RTX 3090 (published llama.cpp rates, gpuThroughput.ts) from
 * the Qwen3-counted tokens (questionEstimate.ts, as the Ask screen shows it). Goal: ≤ 100 ms p50 at 1M entities with recall ≥ 0.95.
 *
 * Query embeddings cost what multilingual-e5-small's cost (`--query-embedder e5-shaped`, the
 * default): each is also run through a random-weight encoder of its shape (e5ShapedBert.ts), whose
 * vector is dropped; the vectors stored and searched come from the n-gram test embedder at the
 * same dimension (384), which is what the KB is built with (embedding 4M texts with the encoder
 * would take hours here). `--query-embedder ngram` leaves the encoder out. The n-gram vectors are
 * randomly projected (`--vectors dense`, the default: dense and signed as a model's are, see
 * RotatedEmbedder); `--vectors sparse` keeps the raw counts, which the sign-bit prefilter cannot rank.
 *
 *   npm run bench qa                          (10k entities)
 *   npm run bench qa -- --entities 1000000    (1M; builds for ~20 min)
 *   … --keep FILE                             (keeps the built KB in FILE and reuses it when present)
 */
export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: false,
    options: {
      entities: { type: 'string', default: '10000' },
      questions: { type: 'string', default: '30' },
      keep: { type: 'string' },
      'query-embedder': { type: 'string', default: 'e5-shaped' },
      threads: { type: 'string', default: '2' },
      vectors: { type: 'string', default: 'dense' },
    },
  });
  const n = Number(values.entities);
  const questions = Number(values.questions);
  const withEncoder = values['query-embedder'] !== 'ngram';
  const dimension = 384;
  const dense = values.vectors !== 'sparse';
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-qa-bench-'));
  console.log(
    `${n.toLocaleString('en')} entities, ${(2 * n).toLocaleString('en')} triples, ${Math.ceil(n / 10).toLocaleString('en')} chunks, vectors float[${dimension}] (n-gram test embedder${dense ? ', randomly projected' : ''}); ` +
      `query embeddings timed with ${withEncoder ? `a multilingual-e5-small-shaped encoder (${values.threads} threads)` : 'the n-gram embedder only'}; ${questions} questions per strategy`,
  );
  const vectors: Embedder = dense ? new RotatedEmbedder(new NgramEmbedder(dimension)) : new NgramEmbedder(dimension);
  const encoder = withEncoder
    ? await TransformersEmbedder.create({
        modelDir: await e5ShapedBertDir(),
        batchSize: 8,
        threads: Number(values.threads),
      })
    : null;
  try {
    const names = entityNames(n);
    const keep = typeof values.keep === 'string' ? values.keep : undefined;
    let kb: KnowledgeBase;
    if (keep && existsSync(keep)) {
      kb = KnowledgeBase.open(keep);
      console.log(`  reusing ${keep}`);
    } else {
      const built = performance.now();
      kb = await buildKb(keep ?? join(dir, 'kb.sqlite'), names, vectors);
      console.log(`  built in ${((performance.now() - built) / 1000).toFixed(1)} s`);
    }

    const prompts = new PromptLibrary(join(import.meta.dirname, '../../prompts'));
    // The product's default policy: the QA steps that reason do, with their whole budget (an upper bound).
    const reasoning = {
      steps: new Set(Object.values(REASONING_STEPS).flatMap((s) => (s.reasons ? s.prompts : []))),
      budget: LLM_CALL_DEFAULTS.reasoningTokens,
      used: 1,
    };
    const llm = new ScriptedLlm(qaBenchRules(), { contextTokens: 8192, reasoning });
    const embedder = new QueryCostEmbedder(vectors, encoder);
    const ctx: QaContext = { kb, llm, embedder, prompts };
    const searches = new ApproximateSearchLog(kb);
    const random = seededRandom(5);
    const qs = Array.from({ length: questions + 3 }, (_, i) => {
      const name = names[Math.floor(random() * names.length)]!;
      return i % 2 === 0 ? `Who was the spouse of the ruler of ${name}?` : `Chi era il coniuge del sovrano di ${name}?`;
    });

    // Baseline: what any KB question costs at least.
    const base: number[] = [];
    for (const q of qs) {
      const t = performance.now();
      const [v] = await embedder.embed([q], { purpose: 'query' });
      kb.vectors.knn('entity_name', v!, 5);
      base.push(performance.now() - t);
    }
    const baseP50 = quantileOf(base.slice(3), 0.5);
    const rows: string[][] = [
      ['strategy', 'p50 ms', 'p95 ms', 'vs baseline', 'embeds/q', 'LLM calls/q', 'tokens/q in · out · reasoning'],
    ];
    rows.push(['embed + 1 KNN (baseline)', fmt(baseP50), fmt(quantileOf(base.slice(3), 0.95)), '1.0×', '1', '0', '-']);
    const breakdown: string[] = [];
    const estimates: string[] = [];
    for (const strategy of ['vector', 'dr', 'hyp', 'dapt', 'llm-only'] as StrategyName[]) {
      const times: number[] = [];
      const steps = new Map<string, number>();
      let embeds = 0;
      const llmCalls: number[] = [];
      const inputTokens: number[] = [];
      const outputTokens: number[] = [];
      const reasoningTokens: number[] = [];
      for (const [i, q] of qs.entries()) {
        const warm = i < 3; // the first questions warm caches (bit codes, statements)
        llm.calls.length = 0;
        embedder.queryTexts = 0;
        searches.recording = !warm;
        const t = performance.now();
        const answer = await ask(ctx, q, { strategy });
        const wall = performance.now() - t;
        searches.recording = false;
        if (warm) continue;
        // The double's own time (Qwen3 tokenization) is the model's, not Polyhop's.
        times.push(wall - llm.calls.reduce((sum, c) => sum + c.durationMs, 0));
        embeds += embedder.queryTexts;
        llmCalls.push(llm.calls.length);
        const sum = (f: (c: (typeof llm.calls)[number]) => number) => llm.calls.reduce((n, c) => n + f(c), 0);
        inputTokens.push(sum((c) => c.promptTokens));
        outputTokens.push(sum((c) => c.completionTokens - c.reasoningTokens));
        reasoningTokens.push(sum((c) => c.reasoningTokens));
        for (const s of answer.trace) {
          const name = s.step.startsWith('solve') ? 'solve' : s.step;
          steps.set(name, (steps.get(name) ?? 0) + s.ms / questions);
        }
      }
      const p50 = quantileOf(times, 0.5);
      const tokens = {
        inputTokens: Math.round(quantileOf(inputTokens, 0.5)),
        outputTokens: Math.round(quantileOf(outputTokens, 0.5)),
        reasoningTokens: Math.round(quantileOf(reasoningTokens, 0.5)),
      };
      rows.push([
        strategy,
        fmt(p50),
        fmt(quantileOf(times, 0.95)),
        `${(p50 / baseP50).toFixed(1)}×`,
        (embeds / questions).toFixed(1),
        quantileOf(llmCalls, 0.5).toFixed(0),
        `${tokens.inputTokens} · ${tokens.outputTokens} · ${tokens.reasoningTokens}`,
      ]);
      const measured = estimateQuestion(strategy, { tokens }).text;
      const shipped = MEASURED_QUESTION_TOKENS[strategy];
      estimates.push(
        `  ${strategy}: ${measured}; the app's (questionEstimate.ts: ${shipped.inputTokens} · ${shipped.outputTokens} · ${shipped.reasoningTokens}): ${estimateQuestion(strategy).text}`,
      );
      breakdown.push(`  ${strategy}: ${[...steps].map(([name, ms]) => `${name} ${fmt(ms)}`).join(', ')}`);
    }
    const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
    for (const row of rows) console.log(`  ${row.map((cell, c) => cell.padEnd(widths[c]!)).join('  ')}`);
    console.log(
      '  tokens/q: p50 over the questions of prompt, reply and reasoning tokens (Qwen3-counted, chat template included; reasoning: every reasoning step spending its whole budget).',
    );
    console.log(
      '  LLM time per question (questionEstimate.ts: these tokens at the published RTX 3090 rates of gpuThroughput.ts, one sequence):',
    );
    for (const line of estimates) console.log(line);
    console.log('  mean ms per trace step:');
    for (const line of breakdown) console.log(line);
    console.log('  recall@10 of the approximate searches against exact ones on the same queries (all strategies):');
    for (const line of searches.recallReport()) console.log(`    ${line}`);
    kb.close();
  } finally {
    await encoder?.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Vectors from `vectors`; each query text also run through `cost` (its result dropped), to pay what the real model costs. */
class QueryCostEmbedder implements Embedder {
  queryTexts = 0;
  constructor(
    private readonly vectors: Embedder,
    private readonly cost: Embedder | null,
  ) {}
  get identity(): string {
    return this.vectors.identity;
  }
  get dimension(): number {
    return this.vectors.dimension;
  }
  async embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]> {
    if (options?.purpose === 'query') {
      this.queryTexts += texts.length;
      await this.cost?.embed(texts, options);
    }
    return this.vectors.embed(texts, options);
  }
  async dispose(): Promise<void> {}
}

function fmt(ms: number): string {
  return ms < 10 ? ms.toFixed(2) : ms.toFixed(1);
}

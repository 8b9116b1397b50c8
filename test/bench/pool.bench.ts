/**
 * Indexing throughput through an endpoint pool (issues 16, 23): the same MDER indexing job over
 * 1, 2 and 4 test-side OpenAI-compatible servers (test/support/openAiServer.ts), each with 4 slots
 * (llama-server `--parallel 4`) on one simulated GPU; the client runs 4 calls per endpoint. The
 * baseline is one such server. Prints calls/s and tokens/s per configuration and the ratios.
 *
 * A call holds its slot for the whole time the GPU takes for its prompt and output tokens, at
 * published llama.cpp rates for a named GPU and model, slots decoding together in one batch
 * (test/support/SimulatedGpu.ts: the profile, its sources, and how batching is modelled).
 *
 * A first, unmeasured run computes every reply with the fixture GGUF through node-llama-cpp and
 * records it (text and token counts); the measured runs are answered from that recording, timed
 * on the simulated GPU: otherwise the servers would share this machine's cores and the bench would
 * measure them, not the pool. `--live` measures the fixture model on this machine instead.
 *
 * Data: the first N passages of 2WikiMultiHopQA (one chunk each); small token budgets keep the
 * random-weight model's share of each call small. Embeddings: the n-gram test embedder (local).
 * `--latency` adds a fixed network delay per call (default 0).
 *
 *   npm run bench pool -- --n 24 [--latency 0] [--live]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addPassageDocument } from '../support/passageDocument.js';
import { KnowledgeBase } from '../../src-main/engine/kb/index.js';
import { IndexingJob } from '../../src-main/engine/mder/IndexingJob.js';
import { RTX_3090_LLAMA_8B } from '../../src-main/engine/models/gpuThroughput.js';
import { PooledLlm } from '../../src-main/engine/models/endpoints/PooledLlm.js';
import { PromptLibrary } from '../../src-main/engine/models/PromptLibrary.js';
import { tinyLlamaPath } from '../fixtures/tinyLlama.js';
import { NgramEmbedder } from '../support/NgramEmbedder.js';
import { OpenAiTestServer, type ReplyRecording } from '../support/openAiServer.js';
import { numberArg } from './support/benchArgs.js';

const CORPUS = join(
  import.meta.dirname,
  '../../../shared/data/2wikimultihopqa/hipporag_2wikimultihopqa_dev1000_corpus.json',
);
const ENDPOINT_COUNTS = [1, 2, 4] as const;
const SLOTS = 4;

interface Passage {
  title: string;
  text: string;
}

export async function run(args: string[]): Promise<void> {
  const n = numberArg(args, '--n', 24);
  const latencyMs = args.includes('--latency') ? numberArg(args, '--latency', 1) : 0;
  const live = args.includes('--live');
  const recording: ReplyRecording | undefined = live ? undefined : new Map();
  const passages = (JSON.parse(readFileSync(CORPUS, 'utf8')) as Passage[]).slice(0, n);
  const prompts = new PromptLibrary(join(import.meta.dirname, '../../prompts'));
  const modelPath = await tinyLlamaPath();
  const servers = await Promise.all(
    Array.from({ length: Math.max(...ENDPOINT_COUNTS) }, () =>
      OpenAiTestServer.start({
        modelPath,
        slots: SLOTS,
        latencyMs,
        gpu: RTX_3090_LLAMA_8B,
        ...(recording ? { recording } : {}),
      }),
    ),
  );
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-bench-pool-'));
  const rows: {
    endpoints: number;
    calls: number;
    replayed: number;
    seconds: number;
    perSecond: number;
    tokens: number;
    output: number;
    failures: number;
    stages: string;
  }[] = [];
  try {
    for (const count of recording ? [0, ...ENDPOINT_COUNTS] : ENDPOINT_COUNTS) {
      const recordingRun = count === 0;
      const used = servers.slice(0, Math.max(count, 1));
      const llm = await PooledLlm.create(
        used.map((s, i) => ({
          id: `s${i}`,
          role: 'generation',
          baseUrl: s.baseUrl,
          model: s.modelName,
          concurrency: SLOTS,
        })),
      );
      const kb = KnowledgeBase.open(join(dir, `kb-${count}.sqlite`), {
        create: { name: `bench${count}`, baseIri: 'https://polyhop.invalid/bench/' },
      });
      passages.forEach((p, i) => {
        addPassageDocument(kb, { path: `dataset:2wiki/${i}`, title: p.title, text: p.text });
      });
      const before = used.reduce((t, s) => t + s.workRequests, 0);
      const replayedBefore = used.reduce((t, s) => t + s.replayed, 0);
      const tokensBefore = used.reduce((t, s) => t + s.promptTokens + s.completionTokens, 0);
      const outputBefore = used.reduce((t, s) => t + s.completionTokens, 0);
      const started = performance.now();
      const result = await new IndexingJob(kb, llm, {
        prompts,
        embedder: new NgramEmbedder(256),
        preprocess: { maxTokens: 96 },
        map: { maxTokens: 128 },
        disambiguate: { maxTokens: 64 },
        enrich: { maxTokensPerTriple: 32 },
        reduce: { maxTokensPerEntity: 48 },
      }).run();
      const seconds = (performance.now() - started) / 1000;
      const calls = used.reduce((t, s) => t + s.workRequests, 0) - before;
      const stages = Object.entries(result.stages)
        .map(([name, st]) => `${name} ${st!.units}u/${st!.calls}c/${(st!.wallMs / 1000).toFixed(1)}s`)
        .join(', ');
      const replayed = used.reduce((t, s) => t + s.replayed, 0) - replayedBefore;
      const tokens = used.reduce((t, s) => t + s.promptTokens + s.completionTokens, 0) - tokensBefore;
      const output = used.reduce((t, s) => t + s.completionTokens, 0) - outputBefore;
      kb.close();
      await llm.dispose();
      if (recordingRun)
        console.log(
          `recorded ${recording!.size} replies of the fixture model in ${seconds.toFixed(1)} s (not measured)`,
        );
      else
        rows.push({
          endpoints: count,
          calls,
          replayed,
          seconds,
          perSecond: calls / seconds,
          tokens,
          output,
          failures: result.failures.length,
          stages,
        });
    }
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  }
  const timing = live
    ? 'computed live by the fixture GGUF on this machine'
    : `replayed, timed on a simulated ${RTX_3090_LLAMA_8B.gpu}, ${RTX_3090_LLAMA_8B.measuredWith} (${RTX_3090_LLAMA_8B.source})`;
  console.log(
    `${n} passages, ${SLOTS} slots per server, ${SLOTS} calls in flight per endpoint, +${latencyMs} ms network per call; replies ${timing}`,
  );
  console.log('servers×slots  calls  replayed  seconds  calls/s  tokens/s  output tok/s  unit failures');
  for (const r of rows) {
    const cells = [
      `${r.endpoints}×${SLOTS}`.padStart(13),
      String(r.calls).padStart(5),
      String(r.replayed).padStart(8),
      r.seconds.toFixed(1).padStart(7),
      r.perSecond.toFixed(2).padStart(7),
      (r.tokens / r.seconds).toFixed(0).padStart(8),
      (r.output / r.seconds).toFixed(0).padStart(12),
      String(r.failures).padStart(13),
    ];
    console.log(cells.join('  '));
  }
  for (const r of rows) console.log(`  ${r.endpoints}×${SLOTS}: ${r.stages}`);
  const base = rows.find((r) => r.endpoints === 1)!;
  for (const r of rows.filter((x) => x.endpoints > 1)) {
    const calls = r.perSecond / base.perSecond;
    const tokens = r.tokens / r.seconds / (base.tokens / base.seconds);
    console.log(
      `ratio ${r.endpoints}×${SLOTS} vs 1×${SLOTS}: calls/s ${calls.toFixed(2)}×, tokens/s ${tokens.toFixed(2)}× (ideal ${r.endpoints}×)`,
    );
  }
}

/**
 * Indexing throughput through an endpoint pool (issue 16): the same MDER indexing job over 1, 2
 * and 4 test-side OpenAI-compatible servers (test/support/openAiServer.ts, one slot each) that add
 * a fixed latency to every call, standing in for the network and a GPU's time per call. Prints
 * LLM calls per second and the ratios 2 vs 1 and 4 vs 1 (goal: ≥ 3.5× at 4).
 *
 * A first, unmeasured run computes every reply with the fixture GGUF through node-llama-cpp and
 * records it; the measured runs are answered from that recording (the same replies, the same
 * calls), as servers with their own GPUs would answer: otherwise 4 model servers would share this
 * machine's cores and the bench would measure them, not the pool. `--live` measures without it.
 *
 * Data: the first N passages of 2WikiMultiHopQA (one chunk each); small token budgets keep the
 * random-weight model's share of each call small. Embeddings: the n-gram test embedder (local).
 *
 *   npm run bench pool -- --n 24 --latency 200 [--live]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256Hex } from '../../src-main/engine/base/hash.js';
import { KnowledgeBase } from '../../src-main/engine/kb/index.js';
import { IndexingJob } from '../../src-main/engine/mder/IndexingJob.js';
import { PooledLlm } from '../../src-main/engine/models/endpoints/PooledLlm.js';
import { PromptLibrary } from '../../src-main/engine/models/PromptLibrary.js';
import { tinyLlamaPath } from '../fixtures/tinyLlama.js';
import { NgramEmbedder } from '../support/NgramEmbedder.js';
import { OpenAiTestServer, type ReplyRecording } from '../support/openAiServer.js';
import { numberArg } from './support/benchArgs.js';

const CORPUS = join(import.meta.dirname, '../../../shared/data/2wikimultihopqa/hipporag_2wikimultihopqa_dev1000_corpus.json');
const ENDPOINT_COUNTS = [1, 2, 4] as const;

interface Passage {
  title: string;
  text: string;
}

export async function run(args: string[]): Promise<void> {
  const n = numberArg(args, '--n', 24);
  const latencyMs = numberArg(args, '--latency', 200);
  const live = args.includes('--live');
  const recording: ReplyRecording | undefined = live ? undefined : new Map();
  const passages = (JSON.parse(readFileSync(CORPUS, 'utf8')) as Passage[]).slice(0, n);
  const prompts = new PromptLibrary(join(import.meta.dirname, '../../prompts'));
  const modelPath = await tinyLlamaPath();
  const servers = await Promise.all(Array.from({ length: Math.max(...ENDPOINT_COUNTS) }, () => OpenAiTestServer.start({ modelPath, latencyMs, ...(recording ? { recording } : {}) })));
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-bench-pool-'));
  const rows: { endpoints: number; calls: number; replayed: number; seconds: number; perSecond: number; failures: number; stages: string }[] = [];
  try {
    for (const count of recording ? [0, ...ENDPOINT_COUNTS] : ENDPOINT_COUNTS) {
      const recordingRun = count === 0;
      const used = servers.slice(0, Math.max(count, 1));
      const llm = await PooledLlm.create(used.map((s, i) => ({ id: `s${i}`, role: 'generation', baseUrl: s.baseUrl, model: s.modelName, concurrency: 1 })));
      const kb = KnowledgeBase.open(join(dir, `kb-${count}.sqlite`), { create: { name: `bench${count}`, baseIri: 'https://polyhop.invalid/bench/' } });
      passages.forEach((p, i) => {
        const doc = kb.addDocument({ path: `dataset:2wiki/${i}`, title: p.title, hash: sha256Hex(p.text), mime: 'text/plain', size: p.text.length, language: 'en' });
        kb.replaceChunks(doc.id, [{ ord: 0, text: p.text, language: 'en', startOffset: 0, endOffset: p.text.length, page: null }]);
      });
      const before = used.reduce((t, s) => t + s.workRequests, 0);
      const replayedBefore = used.reduce((t, s) => t + s.replayed, 0);
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
      kb.close();
      await llm.dispose();
      if (recordingRun) console.log(`recorded ${recording!.size} replies of the fixture model in ${seconds.toFixed(1)} s (not measured)`);
      else rows.push({ endpoints: count, calls, replayed, seconds, perSecond: calls / seconds, failures: result.failures.length, stages });
    }
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`${n} passages, +${latencyMs} ms per call, one slot per server (fixture GGUF, node-llama-cpp, 1 thread each${live ? ', computed live on this machine' : ', replies replayed from the recording run'})`);
  console.log('endpoints  calls  replayed  seconds  calls/s  unit failures');
  for (const r of rows) console.log(`${String(r.endpoints).padStart(9)}  ${String(r.calls).padStart(5)}  ${String(r.replayed).padStart(8)}  ${r.seconds.toFixed(1).padStart(7)}  ${r.perSecond.toFixed(2).padStart(7)}  ${String(r.failures).padStart(13)}`);
  for (const r of rows) console.log(`  ${r.endpoints}: ${r.stages}`);
  const rate = (k: number) => rows.find((r) => r.endpoints === k)!.perSecond;
  console.log(`ratio 2 vs 1: ${(rate(2) / rate(1)).toFixed(2)}×`);
  console.log(`ratio 4 vs 1: ${(rate(4) / rate(1)).toFixed(2)}× (goal ≥ 3.5×)`);
}

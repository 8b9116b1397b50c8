import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { PolyhopError } from '../../base/errors.js';
import { EvalRun, writeEvalReport, type BuiltKb, type EvalCost, type EvalKbSource } from '../../eval/index.js';
import type { Citation, ParsedRequest } from '../contract.js';
import type { ProgressUpdate } from '../JobManager.js';
import type { Handlers } from '../dispatch.js';
import type { Engine } from '../Engine.js';
import type { KbSession } from '../KbSessions.js';
import { importRdfIntoKb } from '../importRdfIntoKb.js';
import { addDocuments } from '../documentChanges.js';
import { runIndexing } from './indexing.js';
import { answerQuestion } from './qa.js';

interface EvalKbHandle {
  readonly name: string;
  readonly session: KbSession;
  passageIdOf(citation: Citation): string | undefined;
}

/**
 * `eval:run` builds (or reuses, by the data set's fingerprint) a KB of the data set's passages
 * with the real indexing pipeline, then asks every question through each strategy with the
 * loaded models; `eval:report` renders a finished (or partial) run folder.
 */
export function evalHandlers(engine: Engine): Pick<Handlers, 'eval:run' | 'eval:report'> {
  // Two runs writing one results.jsonl would interleave their rows.
  const runningDirs = new Set<string>();
  return {
    'eval:run': (request) => {
      const outDir = resolve(request.outDir);
      if (runningDirs.has(outDir))
        throw new PolyhopError('CONFLICT', `A benchmark is already writing to ${outDir}`, { details: { outDir } });
      runningDirs.add(outDir);
      const jobId = engine.jobs.start('eval', null, async ({ signal, progress }) => {
        try {
          return await runEval(engine, request, signal, progress);
        } finally {
          runningDirs.delete(outDir);
        }
      });
      return { jobId };
    },
    'eval:report': async ({ outDir }) => {
      const report = await writeEvalReport(outDir);
      return {
        outDir: report.outDir,
        markdown: report.markdown,
        rows: report.rows as unknown as Record<string, unknown>[],
      };
    },
  };
}

async function runEval(
  engine: Engine,
  request: ParsedRequest<'eval:run'>,
  signal: AbortSignal,
  progress: (update: ProgressUpdate) => void,
) {
  const embedder = await engine.models.requireEmbedder('Evaluation');
  const { judgeModel, similarityModel, ...options } = request;
  // A named judge or similarity model is loaded beside the models under test, and only for this run.
  const judgeLlm = judgeModel ? await engine.models.loadSeparate('generation', judgeModel) : undefined;
  try {
    const similarityEmbedder = similarityModel
      ? await engine.models.loadSeparate('embedding', similarityModel)
      : undefined;
    try {
      const run = new EvalRun<EvalKbHandle>(
        {
          ...options,
          signal,
          onProgress: (p) => progress({ stage: p.stage, done: p.done, total: p.total, message: p.message }),
        },
        {
          buildKb: (source, o) => buildEvalKb(engine, source, o.fingerprint, o.signal ?? signal, o.onProgress),
          ask: (kb, r) =>
            answerQuestion(
              engine,
              kb.session,
              { question: r.question, strategy: r.strategy, answerLanguage: r.answerLanguage },
              { signal: r.signal ?? signal },
            ),
          llm: await engine.models.generation(),
          ...(judgeLlm ? { judgeLlm } : {}),
          prompts: engine.prompts,
          similarity: similarityEmbedder
            ? { embedder: similarityEmbedder, name: modelName(similarityModel!.path) }
            : { embedder, name: `${embedder.identity} (the knowledge base's embedder)` },
        },
      );
      return await run.run();
    } finally {
      await similarityEmbedder?.dispose();
    }
  } finally {
    await judgeLlm?.dispose();
  }
}

/** A model's name as a user knows it: its folder or file name (`all-MiniLM-L6-v2`, `qwen2.5-7b-instruct-q4_k_m.gguf`). */
function modelName(path: string): string {
  return basename(path.replace(/[\\/]+$/, ''));
}

async function buildEvalKb(
  engine: Engine,
  source: EvalKbSource,
  fingerprint: string,
  signal: AbortSignal,
  onProgress?: (p: { done: number; total: number; message: string }) => void,
): Promise<BuiltKb<EvalKbHandle>> {
  const name = `eval-${fingerprint.slice(0, 12)}`;
  const exists = engine.kbs.registry.list().some((k) => k.name === name);
  const session = exists
    ? engine.kbs.get(name)
    : engine.kbs.create({ name, description: `Benchmark knowledge base (${source.kind})` });
  const passageOfPath = new Map<string, string>();
  const progress = (p: { stage: string; done?: number; total?: number; message?: string }): void =>
    onProgress?.({ done: p.done ?? 0, total: p.total ?? 0, message: `${p.stage} ${p.message ?? ''}`.trim() });

  if (source.kind === 'rdf') {
    if (!exists)
      await importRdfIntoKb(session, await engine.models.requireEmbedder('Evaluation'), source.path, {
        format: source.format,
        signal,
        onProgress: progress,
      });
    return { kb: { name, session, passageIdOf: () => undefined }, reused: exists };
  }

  // Passages become files so they go through the same loaders, chunking and indexing as anyone's documents.
  const started = performance.now();
  const dir = join(engine.paths.dataDir, 'eval-corpora', fingerprint.slice(0, 24));
  mkdirSync(dir, { recursive: true });
  const paths = source.passages.map((p, i) => {
    const path = join(dir, `${String(i).padStart(6, '0')}.txt`);
    writeFileSync(path, `${p.title}\n\n${p.text}\n`);
    passageOfPath.set(path, p.id);
    return path;
  });
  const docs = [...session.kb.documents.iterateDocuments()];
  const reused = exists && docs.length === paths.length && docs.every((d) => d.status === 'indexed');
  let cost: EvalCost | undefined;
  if (!reused) {
    await addDocuments(engine, name, paths);
    const { stages } = await runIndexing(engine, session, { signal, progress });
    cost = {
      llmCalls: 0,
      promptTokens: 0,
      completionTokens: 0,
      cacheHits: 0,
      ms: Math.round(performance.now() - started),
    };
    for (const stage of Object.values(stages)) {
      cost.llmCalls += stage.calls;
      cost.promptTokens += stage.promptTokens;
      cost.completionTokens += stage.completionTokens;
      cost.cacheHits += stage.cacheHits;
    }
  }
  return {
    kb: {
      name,
      session,
      passageIdOf: (c) => {
        const doc = session.kb.documents.getDocument(c.documentId);
        return doc ? passageOfPath.get(doc.path) : undefined;
      },
    },
    reused,
    ...(cost ? { cost } : {}),
  };
}

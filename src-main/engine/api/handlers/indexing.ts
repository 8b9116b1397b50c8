import { ocrLanguageInstalled } from '../../ingest/load/ocr/ocrLanguages.js';
import { PolyhopError } from '../../base/errors.js';
import { isStorageFull, storageError } from '../../base/storageError.js';
import { IndexingJob, type IndexingResult } from '../../mder/IndexingJob.js';
import { ingestPending, type IngestPendingOptions, type IngestPendingResult } from '../../mder/ingestPending.js';
import type { Settings } from '../contract.js';
import { planEmbedding } from '../../mder/planEmbedding.js';
import { calibrateKb } from '../../mder/calibration/index.js';
import { CachingLlm } from '../../models/CachingLlm.js';
import { groupFailureReasons } from '../../mder/unitFailure.js';
import type { Handlers } from '../dispatch.js';
import type { Engine } from '../Engine.js';
import type { ProgressUpdate } from '../JobManager.js';
import type { KbSession } from '../KbSessions.js';

/**
 * `index:start`: ingest (load + chunk) pending documents, then MDER. Pausing cancels the job and
 * keeps its checkpoints and LLM-call cache, so starting again resumes without repeating work.
 */
export function indexingHandlers(engine: Engine): Pick<Handlers, 'index:start' | 'kb:reembed'> {
  return {
    'index:start': ({ kb: name }) => {
      const session = engine.kbs.get(name);
      return {
        jobId: engine.jobs.start('index', session.name, ({ signal, progress }) =>
          runIndexing(engine, session, { signal, progress }),
        ),
      };
    },
    'kb:reembed': ({ kb: name }) => {
      const session = engine.kbs.get(name);
      return {
        jobId: engine.jobs.start('reembed', session.name, ({ signal, progress }) =>
          reembed(engine, session, { signal, progress }),
        ),
      };
    },
  };
}

/**
 * Switches a KB to the loaded embedder: its vectors are dropped and rebuilt; documents, entities,
 * triples and summaries stay. Cancelling leaves the rest missing, and running again (or
 * indexing) fills them in.
 */
async function reembed(
  engine: Engine,
  session: KbSession,
  { signal, progress }: { signal: AbortSignal; progress: (update: ProgressUpdate) => void },
): Promise<{ vectors: number }> {
  if (indexing.has(session))
    throw new PolyhopError('CONFLICT', `"${session.name}" is being indexed; re-embed when it is done`);
  indexing.add(session);
  try {
    const embedder = await engine.models.requireEmbedder('Re-embedding');
    session.kb.vectors.setEmbedder(embedder.identity, embedder.dimension);
    const plan = planEmbedding(session.kb, embedder, { signal });
    let done = 0;
    progress({ stage: 'embed', done, total: plan.total, message: embedder.identity });
    await plan.run((n) =>
      progress({ stage: 'embed', done: (done += n), total: plan.total, message: embedder.identity }),
    );
    // The old calibration was for the old embedder: measure the new one's scale now.
    if (engine.settings.get().thresholds === 'calibrated') await calibrateKb(session.kb, embedder, { signal });
    return { vectors: plan.total };
  } finally {
    indexing.delete(session);
  }
}

const indexing = new WeakSet<KbSession>();

/**
 * The `documentLimits` and `ocrLanguages` settings as ingest options: the loader thread's limits,
 * the DOCX part limit, and the languages OCR recognises (those still installed; none left: all).
 */
export function documentLimitOptions(
  { memoryMb, timeSeconds, docxXmlMb }: Settings['documentLimits'],
  ocrLanguages: Settings['ocrLanguages'],
): Pick<IngestPendingOptions, 'limits' | 'load'> {
  const languages = (ocrLanguages ?? []).filter(ocrLanguageInstalled);
  return {
    limits: { memoryMb, timeSeconds },
    load: { maxDocxXmlBytes: docxXmlMb * 1024 ** 2, ...(languages.length ? { ocr: { languages } } : {}) },
  };
}

export interface IndexingRunResult extends IndexingResult {
  ingestFailures: IngestPendingResult['failed'];
  /** Units this run had to do: documents to ingest plus every stage's units. */
  units: number;
  /** Units that failed (ingest and stages); the job still ends `done` and the rest is kept. */
  failed: number;
  /** Why they failed (`stage: message`), with how many each, most frequent first. */
  failureReasons: { reason: string; count: number }[];
}

/** Indexes everything pending in a KB (also used by benchmarks that build their own KB). */
export async function runIndexing(
  engine: Engine,
  session: KbSession,
  { signal, progress }: { signal: AbortSignal; progress: (update: ProgressUpdate) => void },
): Promise<IndexingRunResult> {
  if (indexing.has(session)) throw new PolyhopError('CONFLICT', `"${session.name}" is already being indexed`);
  indexing.add(session);
  try {
    const embedder = await engine.models.requireEmbedder('Indexing');
    session.kb.vectors.assertEmbedder(embedder.identity, embedder.dimension);
    const llm = new CachingLlm(await engine.models.requireGeneration('Indexing'), {
      store: session.kb.jobState.callCache,
      reasoning: engine.settings.get().reasoning,
    });
    const { thresholds, concurrency, documentLimits, ocrLanguages } = engine.settings.get();
    const ingest = await ingestPending(session.kb, {
      embedder,
      thresholds,
      signal,
      ...documentLimitOptions(documentLimits, ocrLanguages),
      onProgress: (p) => progress({ stage: 'ingest', ...p }),
    });
    const result = await new IndexingJob(session.kb, llm, {
      prompts: engine.prompts,
      embedder,
      thresholds,
      signal,
      concurrency,
      onProgress: (p) => progress(p),
      // A view that never loaded reads SQLite when first used; a loaded one is brought up to date.
      updateRdfView: () => session.rdf.resync(),
    }).run();
    // Disambiguate calibrates when it has names to compare; a KB with none new (or indexed before calibration existed) is measured here.
    if (thresholds === 'calibrated') await calibrateKb(session.kb, embedder, { signal });
    const units =
      ingest.ingested + ingest.failed.length + Object.values(result.stages).reduce((n, s) => n + s.units, 0);
    const failureReasons = groupFailureReasons([
      ...ingest.failed.map((f) => `ingest: ${f.reason}`),
      ...result.failures.map((f) => `${f.stage}: ${f.message}`),
    ]);
    return {
      ingestFailures: ingest.failed,
      ...result,
      units,
      failed: ingest.failed.length + result.failures.length,
      failureReasons,
    };
  } catch (error) {
    // Failed, paused or cancelled: what the job wrote stays, so the view (which may have loaded
    // mid-job, as the screens show the KB while it is indexed) reloads too; queries wait for it.
    void session.rdf.resync();
    // A full disk stops the job with its checkpoints kept; say so (STORAGE_FULL, naming the KB file) rather than INTERNAL.
    throw isStorageFull(error) ? storageError(error, session.kb.file) : error;
  } finally {
    indexing.delete(session);
  }
}

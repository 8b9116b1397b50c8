import { setImmediate as nextTurn } from 'node:timers/promises';
import { isCancellation } from '../base/errors.js';
import type { LoadedDocument } from '../ingest/types.js';
import { pageTexts } from '../ingest/pageTexts.js';
import type { KnowledgeBase } from '../kb/KnowledgeBase.js';
import type { DocumentRecord, VectorKind } from '../kb/types.js';
import { VECTOR_KINDS } from '../kb/VectorIndexRepository.js';
import type { Engine } from './Engine.js';
import type { ProgressUpdate } from './JobManager.js';
import type { KbSession } from './KbSessions.js';
import { loadFileAgain, readTextAgain } from './readDocumentAgain.js';

/** What an upgrade job did. */
export interface UpgradeResult {
  /** Vector families whose new centre went live. */
  recentred: VectorKind[];
  /** Documents whose pages are now kept. */
  pagesKept: number;
  /** Documents whose file could not be read again as indexed (gone or changed): citations into them read the file. */
  pagesUnavailable: number;
}

export interface UpgradeOptions {
  signal: AbortSignal;
  progress: (update: ProgressUpdate) => void;
  /** Reads a document's file again with the indexing loader (BAD_INPUT or NOT_FOUND when it is gone or changed). */
  loadFile: (file: DocumentRecord) => Promise<LoadedDocument>;
}

/** Checkpoint of the documents whose pages could not be kept, so that opening the KB does not try them again. */
const PAGES_UNAVAILABLE = 'upgrade:pagesUnavailable';

/**
 * Work a KB made by an older Polyhop still needs, done in the background instead of by the first
 * search or citation: recentring large vector families (schema v15, VectorCentres.ts) and keeping
 * the pages of paged documents indexed before v16 (DocumentPageRepository). Each batch (a family's
 * batch of vectors, a document's pages) is its own transaction, so a kill or cancel loses at most
 * one and the next run goes on from there.
 */
export function upgradeDue(kb: KnowledgeBase): boolean {
  return VECTOR_KINDS.some((kind) => kb.vectors.recentrePending(kind)) || nextWithoutPages(kb, 0) !== undefined;
}

/**
 * Starts `session`'s upgrade job when its KB needs one and none runs: on opening a KB, after an
 * index or re-embed job, or on demand (`kb:upgrade`). Returns the running job's id, or null.
 */
export function startUpgradeIfDue(engine: Engine, session: KbSession): string | null {
  const running = engine.jobs
    .list()
    .find((j) => j.kind === 'upgrade' && j.kb === session.name && j.status === 'running');
  if (running) return running.jobId;
  if (session.kb.closed || !upgradeDue(session.kb)) return null;
  return engine.jobs.start('upgrade', session.name, ({ signal, progress }) =>
    upgradeKb(session.kb, { signal, progress, loadFile: (file) => loadFileAgain(engine.settings.get(), file) }),
  );
}

/** The upgrade itself: the vector families first (a large one's recode would block a search), then the pages. */
export async function upgradeKb(kb: KnowledgeBase, options: UpgradeOptions): Promise<UpgradeResult> {
  const recentred = await recentreFamilies(kb, options);
  return { recentred, ...(await keepPages(kb, options)) };
}

async function recentreFamilies(kb: KnowledgeBase, { signal, progress }: UpgradeOptions): Promise<VectorKind[]> {
  const recentred: VectorKind[] = [];
  for (const kind of VECTOR_KINDS) {
    if (!kb.vectors.recentrePending(kind)) continue;
    for (;;) {
      signal.throwIfAborted();
      const step = kb.vectors.recentreStep(kind);
      progress({ stage: 'recentre', done: step.done, total: step.total, message: kind });
      if (step.finished) break;
      // Searches and writes run between batches: they use the live codes until the switch.
      await nextTurn();
    }
    recentred.push(kind);
  }
  return recentred;
}

/** Keeps each paged document's pages, cut by the one page rule (ingest/pageTexts.ts) from its file read again. */
async function keepPages(
  kb: KnowledgeBase,
  { signal, progress, loadFile }: UpgradeOptions,
): Promise<{ pagesKept: number; pagesUnavailable: number }> {
  const unavailable = new Set(kb.jobState.getCheckpoint<number[]>(PAGES_UNAVAILABLE) ?? []);
  const total = kb.pages.missing(0, Number.MAX_SAFE_INTEGER).filter((id) => !unavailable.has(id)).length;
  let kept = 0;
  let failed = 0;
  for (let id = nextWithoutPages(kb, 0); id !== undefined; id = nextWithoutPages(kb, id)) {
    signal.throwIfAborted();
    progress({ stage: 'pages', done: kept + failed, total });
    const document = kb.documents.getDocument(id);
    const loaded = document
      ? await readTextAgain(kb, document, loadFile).catch((error: unknown) => {
          if (isCancellation(error)) throw error;
          return undefined;
        })
      : undefined;
    const pages = loaded ? pageTexts(loaded) : [];
    signal.throwIfAborted();
    if (pages.length > 0) {
      // Read again, a scan says which of its pages OCR read too (schema v18).
      kb.transaction(() => {
        kb.pages.replace(id, pages);
        kb.ocr.replace(id, loaded?.ocr);
      });
      kept++;
    } else {
      // Gone, changed, or no pages after all: its citations keep reading the file.
      unavailable.add(id);
      kb.jobState.setCheckpoint(PAGES_UNAVAILABLE, [...unavailable]);
      failed++;
    }
  }
  if (total > 0) progress({ stage: 'pages', done: total, total });
  return { pagesKept: kept, pagesUnavailable: failed };
}

/** The next document after `after` whose pages are missing and not known to be unavailable. */
function nextWithoutPages(kb: KnowledgeBase, after: number): number | undefined {
  const unavailable = new Set(kb.jobState.getCheckpoint<number[]>(PAGES_UNAVAILABLE) ?? []);
  for (let from = after; ;) {
    const ids = kb.pages.missing(from, 100);
    const next = ids.find((id) => !unavailable.has(id));
    if (next !== undefined || ids.length < 100) return next;
    from = ids.at(-1) as number;
  }
}

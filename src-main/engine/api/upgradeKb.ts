import { setImmediate as nextTurn } from 'node:timers/promises';
import type { KnowledgeBase } from '../kb/KnowledgeBase.js';
import type { VectorKind } from '../kb/types.js';
import { VECTOR_KINDS } from '../kb/VectorIndexRepository.js';
import type { Engine } from './Engine.js';
import type { ProgressUpdate } from './JobManager.js';
import type { KbSession } from './KbSessions.js';

/** What an upgrade job did. */
export interface UpgradeResult {
  /** Vector families whose new centre went live. */
  recentred: VectorKind[];
}

/**
 * Work a KB made by an older Polyhop still needs, done in the background instead of by the first
 * search: recentring large vector families (schema v15, VectorCentres.ts), a batch per
 * transaction, so a kill or cancel loses at most one batch and the next run goes on from there.
 */
export function upgradeDue(kb: KnowledgeBase): boolean {
  return VECTOR_KINDS.some((kind) => kb.vectors.recentrePending(kind));
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
    upgradeKb(session.kb, { signal, progress }),
  );
}

/** The upgrade itself, family by family; each batch is its own transaction, and the event loop turns between them. */
export async function upgradeKb(
  kb: KnowledgeBase,
  { signal, progress }: { signal: AbortSignal; progress: (update: ProgressUpdate) => void },
): Promise<UpgradeResult> {
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
  return { recentred };
}

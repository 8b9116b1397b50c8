import type { Method, Request, Responses } from '../engine/api/contract.js';
import type { Engine } from '../engine/api/Engine.js';
import { runJob } from './runJob.js';

export interface FinishStoreSyncContext {
  call: <M extends Method>(method: M, request: Request<M>) => Promise<Responses[M]>;
  getEngine: () => Promise<Engine>;
  /** JSON output: no progress bars (the messages still go to stderr). */
  quiet: boolean;
  fail: (message: string) => never;
}

/**
 * After a command that changed a KB's records (`index`, `import`, `rm`, `add`): waits for the
 * automatic sync to the KB's external store that the change started, drawing its progress. Without
 * this the engine's dispose at exit cancels the sync, and the store keeps its old copy (issue 24
 * point 10). Ctrl-C cancels the sync: what it did not send stays in the journal, and the message
 * says how to send it. A failed sync fails the command, saying the KB's own change is done.
 */
export async function finishStoreSync(ctx: FinishStoreSyncContext, kb: string): Promise<void> {
  const resume = storeSyncResume(kb);
  for (;;) {
    // A sync that saw more changes arrive starts the next one from a setImmediate after it ends.
    await new Promise((resolve) => setImmediate(resolve));
    const status = await ctx.call('store:show', { kb });
    if (!status.jobId) {
      // A sync that failed before this looked (a store refusing at once, or one of a conversation's
      // answers) has no job left to wait for: only the journal says the store is behind.
      const failed = status.config?.autoSync ? status.sync?.lastError : null;
      if (failed) {
        ctx.fail(
          `the change to "${kb}" is done, but the last store sync failed: ${failed}; ` +
            `the changes not yet sent stay journalled; ${resume}`,
        );
      }
      return;
    }
    console.error(`Syncing the external store of "${kb}" (Ctrl-C stops; unsent changes stay journalled)…`);
    const result = await runJob(await ctx.getEngine(), status.jobId, { quiet: ctx.quiet });
    if (result.status === 'cancelled' || result.status === 'paused') {
      console.error(`Store sync cancelled: the changes not yet sent stay journalled; ${resume}.`);
      return;
    }
    if (result.status === 'failed') {
      ctx.fail(
        `the change to "${kb}" is done, but the store sync failed: ${result.error?.message ?? 'unknown error'}; ` +
          `the changes not yet sent stay journalled; ${resume}`,
      );
    }
  }
}

/** How to send what a failed or cancelled sync of `kb` left in the journal. */
export function storeSyncResume(kb: string): string {
  return `\`polyhop store sync --kb "${kb}"\` sends them`;
}

/**
 * Calls `report` as soon as a sync of `kb`'s external store fails, until the returned function is
 * called: a conversation's answers are synced in the background while the next question runs, and
 * its user should not learn of a failure only from `polyhop store show`.
 */
export function onStoreSyncFailed(engine: Engine, kb: string, report: (message: string) => void): () => void {
  return engine.onEvent((event) => {
    if (event.name !== 'job:finished' || event.payload.kind !== 'store' || event.payload.status !== 'failed') return;
    if (engine.jobs.get(event.payload.jobId)?.kb !== kb) return;
    report(event.payload.error?.message ?? 'unknown error');
  });
}

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
  const resume = `\`polyhop store sync --kb "${kb}"\` sends them`;
  for (;;) {
    // A sync that saw more changes arrive starts the next one from a setImmediate after it ends.
    await new Promise((resolve) => setImmediate(resolve));
    const status = await ctx.call('store:show', { kb });
    if (!status.jobId) return;
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

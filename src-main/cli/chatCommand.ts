import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { STRATEGIES, type Answer, type Method, type Request, type StrategyName } from '../engine/api/contract.js';
import { storeSyncResume } from './finishStoreSync.js';
import type { JobResult } from './runJob.js';

export interface ChatDeps {
  job: <M extends Method>(method: M, request: Request<M>) => Promise<JobResult>;
  /** Where the questions are read from (default: stdin). */
  input: NodeJS.ReadableStream;
  /** Waits for the store sync a change to `kb` started; see `finishStoreSync`. */
  storeSynced: (kb: string) => Promise<void>;
  /** Reports each failed sync of `kb`'s store as it happens; see `onStoreSyncFailed`. Returns the unsubscribe. */
  onStoreSyncFailed: (kb: string, report: (message: string) => void) => Promise<() => void>;
}

/**
 * `polyhop chat --kb NAME`: one thread, a question a line. Follow-ups are made standalone from the
 * thread before they are asked; `/strategy NAME` switches strategy, `/quit` (or end of input) stops.
 */
export function registerChatCommand(program: Command, deps: () => ChatDeps): void {
  program
    .command('chat')
    .description(
      'a conversation over a knowledge base: one thread, follow-ups rewritten from it (/strategy NAME, /quit)',
    )
    .requiredOption('--kb <name>', 'knowledge base')
    .option('--strategy <name>', 'answering strategy', 'dr')
    .action(async (opts: { kb: string; strategy: string }) => {
      const { job, input, storeSynced, onStoreSyncFailed } = deps();
      let strategy = parseStrategy(opts.strategy);
      let thread: number | 'new' = 'new';
      const stopReporting = await onStoreSyncFailed(opts.kb, (message) =>
        console.error(
          `(store sync failed: ${message}; the answers not yet sent stay journalled, ` +
            `the next answer's sync tries again, or ${storeSyncResume(opts.kb)})`,
        ),
      );
      try {
        const lines = createInterface({ input, terminal: false });
        for await (const raw of lines) {
          const line = raw.trim();
          if (!line) continue;
          if (line === '/quit') break;
          if (line.startsWith('/strategy')) {
            const name = line.slice('/strategy'.length).trim();
            if ((STRATEGIES as readonly string[]).includes(name)) {
              strategy = name as StrategyName;
              console.log(`Strategy: ${strategy}`);
            } else console.log(`Unknown strategy "${name}"; one of ${STRATEGIES.join(', ')}`);
            continue;
          }
          const result = await job('qa:ask', { kb: opts.kb, question: line, strategy, retrievalOnly: false, thread });
          if (result.status !== 'done') {
            console.log(`(${result.error?.message ?? `question ${result.status}`})`);
            continue;
          }
          const answer = result.result as Answer;
          if (answer.thread) thread = answer.thread.id;
          if (answer.question !== line) console.log(`Asked as: ${answer.question}`);
          if (answer.shortAnswer) console.log(answer.shortAnswer);
          console.log(`${answer.text}\n`);
        }
        lines.close();
      } finally {
        stopReporting();
      }
      if (thread === 'new') return;
      console.log(`Thread ${thread}: continue with polyhop ask --thread ${thread}`);
      // The answers' graphs go to an auto-synced external store; exiting would cancel that. Once at
      // the end, so the conversation does not wait on the store between questions.
      await storeSynced(opts.kb);
    });
}

function parseStrategy(name: string): StrategyName {
  if (!(STRATEGIES as readonly string[]).includes(name))
    throw new Error(`--strategy: one of ${STRATEGIES.join(', ')}, not "${name}"`);
  return name as StrategyName;
}

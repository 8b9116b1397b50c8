import { Option, type Command } from 'commander';
import { STRATEGIES, type Responses } from '../engine/api/contract.js';
import { CliError, type CliContext } from './CliContext.js';
import { StreamedAnswer } from './StreamedAnswer.js';

/** `polyhop ask QUESTION --kb NAME`: one answer with its sources (and, with --thread, a follow-up). */
export function registerAskCommand(program: Command, { job, out, json, storeSynced }: CliContext): void {
  program
    .command('ask <question>')
    .description('answer a question over a knowledge base, with citations')
    .requiredOption('--kb <name>', 'knowledge base')
    .addOption(new Option('--strategy <name>', 'answering strategy').choices([...STRATEGIES]).default('dr'))
    .option('--lang <code>', 'answer language (default: the question language)')
    .option('--retrieval-only', 'no generation: ranked evidence with citations')
    .option('--trace', 'print the strategy steps')
    .option('--thread <id>', 'continue this thread: a follow-up is made standalone from its turns first')
    .action(
      async (
        question: string,
        opts: {
          kb: string;
          strategy: (typeof STRATEGIES)[number];
          lang?: string;
          retrievalOnly?: boolean;
          trace?: boolean;
          thread?: string;
        },
      ) => {
        const thread = opts.thread === undefined ? 'new' : Number(opts.thread);
        if (thread !== 'new' && !(Number.isInteger(thread) && thread > 0))
          throw new CliError(`--thread takes a thread id (a positive integer), not "${opts.thread}"`);
        // On a terminal the answer streams as it is written (the short answer follows it); piped, the short answer comes first.
        const streamed = !json() && process.stdout.isTTY ? new StreamedAnswer(process.stdout) : null;
        const result = await job(
          'qa:ask',
          {
            kb: opts.kb,
            question,
            strategy: opts.strategy,
            retrievalOnly: Boolean(opts.retrievalOnly),
            thread,
            ...(opts.lang ? { answerLanguage: opts.lang } : {}),
          },
          { onToken: streamed?.onToken },
        );
        if (result.status !== 'done') throw new CliError(result.error?.message ?? `question ${result.status}`);
        const answer = result.result as Responses['qa:history'][number]['answer'];
        out(answer, () => {
          if (streamed) streamed.finish(answer);
          else {
            if (answer.shortAnswer) console.log(`${answer.shortAnswer}\n`);
            process.stdout.write(answer.text);
          }
          process.stdout.write(
            `\n\nSources (\`polyhop source DOCUMENT START-END --kb ${opts.kb}\` shows one on its page):\n`,
          );
          answer.evidence.forEach((e, i) => {
            const cites = e.citations
              .map(
                (c) =>
                  `${c.documentTitle}${c.page ? ` p.${c.page}` : ''} [document ${c.documentId}, ${c.startOffset}-${c.endOffset}]`,
              )
              .join('; ');
            console.log(`  [${i + 1}] ${e.label}${cites ? ` — ${cites}` : ''}`);
          });
          if (opts.trace)
            for (const step of answer.trace)
              console.log(
                `\n# ${step.step} (${step.llmCalls} calls, ${step.promptTokens}+${step.completionTokens} tokens, ` +
                  `${Math.round(step.ms)} ms)\n${JSON.stringify(step.detail, null, 2)}`,
              );
          if (answer.question !== question.trim()) console.log(`\nAsked as: ${answer.question}`);
          if (answer.thread)
            console.log(
              `\nThread ${answer.thread.id}, turn ${answer.thread.position}: continue with --thread ${answer.thread.id}`,
            );
        });
        // The answer's graph goes to an auto-synced external store; exiting would cancel that.
        await storeSynced(opts.kb);
      },
    );
}

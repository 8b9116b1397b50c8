import { Option, type Command } from 'commander';
import { resolve } from 'node:path';
import { DATASET_FORMATS, type Request } from '../engine/api/contract.js';
import { CliError, type CliContext } from './CliContext.js';

/** `polyhop eval run|report`: evaluation runs and their reports. */
export function registerEvalCommands(program: Command, { call, job, out }: CliContext): void {
  // `eval`, not `bench`: `npm run bench` is the performance benchmarks.
  const evaluate = program.command('eval').description('evaluate strategies on a QA data set');
  evaluate
    .command('run')
    .description('build (or reuse) a KB from a data set and ask every question through each strategy')
    .requiredOption('--dataset <path>', 'data set file')
    .addOption(new Option('--format <format>', 'data set format').choices([...DATASET_FORMATS]).makeOptionMandatory())
    .option('--strategies <list>', 'comma-separated', 'dr,vector,llm-only')
    .option('--languages <list>', "comma-separated language codes (default: the data set's)")
    .option('--corpus <path>', 'a HippoRAG corpus to index instead of the questions’ own passages')
    .option('--limit <n>', 'questions', (v) => Number.parseInt(v, 10), 20)
    .addOption(
      new Option('--sample <how>', 'which questions --limit keeps').choices(['first', 'random']).default('first'),
    )
    .option('--baselines <list>', 'strategies Δ% compares against (default: vector,llm-only)')
    .option('--no-judge', 'skip LLM-as-judge')
    .option('--judge-model <gguf>', 'a second GGUF to judge with (default: the generation model)')
    .option(
      '--similarity-model <path>',
      'embedding model (ONNX folder or GGUF) for the similarity metric, e.g. all-MiniLM-L6-v2 (default: the KB embedder)',
    )
    .option('--graph <path>', 'MSE-KG graph file (default: Output.ttl beside the questions)')
    .requiredOption('--out <dir>', 'report folder (a killed run resumes from it)')
    .action(
      async (opts: {
        dataset: string;
        format: Request<'eval:run'>['format'];
        strategies: string;
        languages?: string;
        corpus?: string;
        limit: number;
        sample: 'first' | 'random';
        baselines?: string;
        judge: boolean;
        judgeModel?: string;
        similarityModel?: string;
        graph?: string;
        out: string;
      }) => {
        const result = await job('eval:run', {
          datasetPath: resolve(opts.dataset),
          format: opts.format,
          strategies: opts.strategies.split(',') as Request<'eval:run'>['strategies'],
          ...(opts.languages ? { languages: opts.languages.split(',') } : {}),
          ...(opts.corpus ? { corpusPath: resolve(opts.corpus) } : {}),
          ...(opts.graph ? { graphPath: resolve(opts.graph) } : {}),
          ...(opts.baselines ? { baselines: opts.baselines.split(',') as Request<'eval:run'>['strategies'] } : {}),
          ...(opts.judgeModel ? { judgeModel: { path: resolve(opts.judgeModel) } } : {}),
          ...(opts.similarityModel ? { similarityModel: { path: resolve(opts.similarityModel) } } : {}),
          judge: opts.judge,
          limit: opts.limit,
          sample: opts.sample,
          outDir: resolve(opts.out),
        });
        if (result.status !== 'done') throw new CliError(result.error?.message ?? `evaluation ${result.status}`);
        const report = await call('eval:report', { outDir: resolve(opts.out) });
        out(report, () => console.log(report.markdown));
      },
    );
  evaluate
    .command('report <dir>')
    .description('print the report of a finished run')
    .action(async (dir: string) => {
      const report = await call('eval:report', { outDir: resolve(dir) });
      out(report, () => console.log(report.markdown));
    });
}

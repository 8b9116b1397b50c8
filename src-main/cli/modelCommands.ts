import type { Command } from 'commander';
import { resolve } from 'node:path';
import { CliError, type CliContext } from './CliContext.js';
import { addEndpointCommands } from './endpointCommands.js';
import { chatReasoningLine, printTable } from './format.js';

/** `polyhop models list|info|import|download|remove|use` and `models endpoint …`. */
export function registerModelCommands(program: Command, ctx: CliContext): void {
  const { call, job, out } = ctx;
  const models = program
    .command('models')
    .description('local models: list, inspect, import, download, remove, use; inference servers: endpoint');
  models
    .command('list')
    .description('models in the models folder and the catalog')
    .action(async () => {
      const [files, catalog] = await Promise.all([call('models:list', {}), call('models:catalog', {})]);
      out({ files, catalog }, () => {
        printTable(files.map((f) => ({ file: f.file, kind: f.kind, size: formatBytes(f.sizeBytes) })));
        console.log('\nCatalog (download with `polyhop models download <id>`):');
        printTable(
          catalog.map((c) => ({
            id: c.id,
            role: c.role,
            tier: c.tier ?? '',
            size: formatBytes(c.sizeBytes),
            installed: c.installed ? 'yes' : '',
          })),
        );
      });
    });
  models
    .command('info <path>')
    .description('architecture, parameters, quantisation, context length and chat template of a model file')
    .action(async (path: string) => {
      const info = await call('models:inspect', { path: resolve(path) });
      out(info, () => {
        console.log(JSON.stringify(info, null, 2));
        if (info.chat) console.log(`chat wrapper: ${info.chat.wrapper}; ${chatReasoningLine(info.chat)}`);
      });
    });
  models
    .command('import <path>')
    .description('copy (or reference) a model file into the models folder')
    .option('--reference', 'keep it where it is')
    .action(async (path: string, opts: { reference?: boolean }) => {
      const file = await call('models:import', { path: resolve(path), mode: opts.reference ? 'reference' : 'copy' });
      out(file, () => console.log(`Imported ${file.file}`));
    });
  models
    .command('download <catalogId>')
    .description('download a catalog model (the only command that uses the network)')
    .action(async (catalogId: string) => {
      const result = await job('models:download', { catalogId });
      if (result.status !== 'done') throw new CliError(result.error?.message ?? `download ${result.status}`);
      out(result.result, () => console.log('Downloaded.'));
    });
  models
    .command('remove <file>')
    .description('delete a model from the models folder')
    .action(async (file: string) => {
      await call('models:remove', { file });
      out({ removed: file }, () => console.log(`Removed ${file}`));
    });
  models
    .command('use <role> <path>')
    .description('select the generation or embedding model (loads it to check it works, and remembers it)')
    .option('--gpu-layers <n>', '"auto" or a number', 'auto')
    .option('--context-size <n>', 'context size', (v) => Number.parseInt(v, 10))
    .option('--threads <n>', 'CPU threads', (v) => Number.parseInt(v, 10))
    .option('--sequences <n>', 'parallel sequences', (v) => Number.parseInt(v, 10))
    .action(
      async (
        role: string,
        path: string,
        opts: { gpuLayers: string; contextSize?: number; threads?: number; sequences?: number },
      ) => {
        if (role !== 'generation' && role !== 'embedding')
          throw new CliError('role must be "generation" or "embedding"');
        const status = await call('models:load', {
          role,
          path: resolve(path),
          gpuLayers: opts.gpuLayers === 'auto' ? 'auto' : Number.parseInt(opts.gpuLayers, 10),
          ...(opts.contextSize ? { contextSize: opts.contextSize } : {}),
          ...(opts.threads ? { threads: opts.threads } : {}),
          ...(opts.sequences ? { sequences: opts.sequences } : {}),
        });
        out(status, () =>
          console.log(
            `${role}: ${status.path}\n  backend ${status.backend}, ${status.gpuLayers}/${status.totalLayers} layers on GPU\n  ${status.explanation}`,
          ),
        );
      },
    );

  addEndpointCommands(models, ctx);
}

function formatBytes(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)} GB`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  return n > 0 ? `${Math.round(n / 1e3)} kB` : '-';
}

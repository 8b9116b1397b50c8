import type { Command } from 'commander';
import { resolve } from 'node:path';
import { CliError, type CliContext } from './CliContext.js';
import type { UpgradeResult } from '../engine/api/upgradeKb.js';
import { missingVectorsHint, printTable } from './format.js';
import { runJob } from './runJob.js';

/** `polyhop kb create|list|info|rename|delete|reembed|upgrade|backup|restore`. */
export function registerKbCommands(program: Command, { call, job, out, getEngine, json }: CliContext): void {
  const kb = program.command('kb').description('manage knowledge bases');
  kb.command('create <name>')
    .description('create a knowledge base')
    .option('--description <text>', 'what it holds')
    .option('--base-iri <iri>', 'base IRI for its RDF view')
    .action(async (name: string, opts: { description?: string; baseIri?: string }) => {
      const created = await call('kb:create', {
        name,
        ...(opts.description ? { description: opts.description } : {}),
        ...(opts.baseIri ? { baseIri: opts.baseIri } : {}),
      });
      out(created, () => console.log(`Created knowledge base "${created.name}" (${created.baseIri})`));
    });
  kb.command('list')
    .description('list knowledge bases')
    .action(async () => {
      const list = await call('kb:list', {});
      out(list, () =>
        printTable(
          list.map((k) => ({
            name: k.name,
            documents: k.documentCount,
            entities: k.entityCount,
            triples: k.tripleCount,
            embedder: k.embedder?.identity ?? '-',
            upgrade: k.upgradeDue ? 'due' : '-',
          })),
        ),
      );
    });
  kb.command('info <name>')
    .description('counts, embedder, RDF view state and size of a knowledge base')
    .action(async (name: string) => {
      const info = await call('kb:info', { kb: name });
      out(info, () => {
        console.log(JSON.stringify(info, null, 2));
        const hint = missingVectorsHint(name, info.missingVectors, info.embedder !== null);
        if (hint) console.log(hint);
      });
    });
  kb.command('rename <name> <newName>')
    .description('rename a knowledge base')
    .action(async (name: string, newName: string) => {
      const renamed = await call('kb:rename', { kb: name, newName });
      out(renamed, () => console.log(`Renamed to "${renamed.name}"`));
    });
  kb.command('delete <name>')
    .description('delete a knowledge base and everything in it')
    .action(async (name: string) => {
      await call('kb:delete', { kb: name });
      out({ deleted: name }, () => console.log(`Deleted knowledge base "${name}"`));
    });

  kb.command('reembed <name>')
    .description('rebuild the vectors of a knowledge base with the selected embedding model')
    .action(async (name: string) => {
      const result = await job('kb:reembed', { kb: name });
      if (result.status !== 'done') throw new CliError(result.error?.message ?? `re-embedding ${result.status}`);
      out(result.result, () => console.log(`Re-embedded "${name}"`));
    });
  kb.command('upgrade <name>')
    .description('do the work a knowledge base made by an older Polyhop still needs (also started when it is used)')
    .action(async (name: string) => {
      // Null when nothing is due; else the job running or just started (using the KB starts it too).
      const { jobId } = await call('kb:upgrade', { kb: name });
      if (!jobId) return out({ upgraded: false }, () => console.log(`"${name}" needs no upgrade`));
      const result = await runJob(await getEngine(), jobId, { quiet: json() });
      if (result.status !== 'done')
        throw new CliError(
          `the upgrade of "${name}" ` +
            `${result.status === 'failed' ? `failed: ${result.error?.message ?? 'unknown error'}` : result.status}; ` +
            `run \`polyhop kb upgrade ${name}\` again to go on from where it stopped`,
        );
      const { recentred, pagesKept, pagesUnavailable } = result.result as UpgradeResult;
      out(result.result, () =>
        console.log(
          `Upgraded "${name}": ${recentred.length ? `recentred ${recentred.join(', ')}; ` : ''}` +
            `pages kept for ${pagesKept} documents` +
            (pagesUnavailable ? `, ${pagesUnavailable} unreadable (their citations read the file)` : ''),
        ),
      );
    });
  kb.command('backup <name> <file>')
    .description('write the knowledge base to one file (works while indexing runs)')
    .action(async (name: string, file: string) => {
      const result = await job('kb:backup', { kb: name, outputPath: resolve(file) });
      if (result.status !== 'done') throw new CliError(result.error?.message ?? `backup ${result.status}`);
      out(result.result, () => console.log(`Backed up "${name}" to ${resolve(file)}`));
    });
  kb.command('restore <file> <name>')
    .description('verify a backup file and restore it as a knowledge base')
    .option('--replace', 'replace an existing knowledge base of that name')
    .action(async (file: string, name: string, opts: { replace?: boolean }) => {
      const result = await job('kb:restore', { inputPath: resolve(file), name, replace: Boolean(opts.replace) });
      if (result.status !== 'done') throw new CliError(result.error?.message ?? `restore ${result.status}`);
      out(result.result, () => console.log(`Restored "${name}" from ${resolve(file)}`));
    });
}

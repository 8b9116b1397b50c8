import type { Command } from 'commander';
import { resolve } from 'node:path';
import type { Responses } from '../engine/api/contract.js';
import { CliError, type CliContext } from './CliContext.js';
import { indexingFailureMessage, printDocument, printTable } from './format.js';

/** `polyhop add`, `index`, `docs`, `rm` and `reindex`: a KB's documents and their indexing. */
export function registerDocumentCommands(program: Command, { call, job, out, storeSynced }: CliContext): void {
  program
    .command('add <paths...>')
    .description('add files or folders (recursive) to a knowledge base; unchanged files are skipped')
    .requiredOption('--kb <name>', 'knowledge base')
    .option(
      '--watch',
      'keep the folders in sync from now on (followed while `polyhop watch`, browser mode or the window runs)',
    )
    .option(
      '--ignore <pattern>',
      'with --watch: glob to leave out, e.g. "*.bak" (repeatable)',
      (v: string, all: string[]) => [...all, v],
      [],
    )
    .action(async (paths: string[], opts: { kb: string; watch?: boolean; ignore: string[] }) => {
      const watched: Responses['watch:add'][] = [];
      for (const path of opts.watch ? paths : [])
        watched.push(await call('watch:add', { kb: opts.kb, path: resolve(path), ignore: opts.ignore }));
      const result = await call('docs:add', { kb: opts.kb, paths: paths.map((p) => resolve(p)) });
      out(opts.watch ? { ...result, watched } : result, () => {
        console.log(
          `Added ${result.added.length} document(s), ${result.unchanged} unchanged, ${result.renamed} moved, ${result.removed} removed.`,
        );
        for (const e of result.errors) console.log(`  error: ${e.path}: ${e.reason}`);
        const est = result.estimate;
        if (est) {
          const rest = est.uncounted > 0 ? `; ${est.uncounted} PDF, office or e-book files not counted` : '';
          console.log(
            `Indexing ${est.documents} text document(s): ${est.text} (estimate${rest}; run \`polyhop index\`).`,
          );
        }
        for (const w of watched)
          console.log(`Watching ${w.path} (run \`polyhop watch --kb ${opts.kb}\` to follow it here).`);
      });
      await storeSynced(opts.kb);
    });

  program
    .command('index')
    .description('index pending documents with MDER (Ctrl-C pauses cleanly; run again to resume)')
    .requiredOption('--kb <name>', 'knowledge base')
    .action(async (opts: { kb: string }) => {
      const result = await job('index:start', { kb: opts.kb }, { pauseOnInterrupt: true });
      const failures = result.status === 'done' ? indexingFailureMessage(result.result) : null;
      out(result, () => {
        if (!failures) console.log(`Indexing ${result.status}.`);
      });
      await storeSynced(opts.kb);
      if (result.status === 'failed') throw new CliError(result.error?.message ?? 'indexing failed');
      if (failures) throw new CliError(failures);
    });

  program
    .command('docs')
    .description('documents of a knowledge base with their status and errors')
    .requiredOption('--kb <name>', 'knowledge base')
    .option('--filter <text>', 'filter by name, type, language or status', '')
    .option('--limit <n>', 'rows', (v) => Number.parseInt(v, 10), 200)
    .action(async (opts: { kb: string; filter: string; limit: number }) => {
      const page = await call('docs:list', { kb: opts.kb, filter: opts.filter, limit: opts.limit });
      out(page, () => {
        printTable(
          page.rows.map((d) => ({
            id: d.id,
            title: d.title,
            lang: d.language ?? '-',
            chunks: d.chunkCount,
            triples: d.tripleCount,
            status: d.status,
            error: d.error ?? '',
          })),
        );
        console.log(`${page.rows.length} of ${page.total}`);
      });
    });

  program
    .command('doc <documentId>')
    .description('one document: its file, status, counts and error, and the pages OCR read with its confidence')
    .requiredOption('--kb <name>', 'knowledge base')
    .action(async (documentId: string, opts: { kb: string }) => {
      const detail = await call('docs:get', { kb: opts.kb, id: documentIdArg(documentId) });
      out(detail, () => printDocument(detail));
    });

  program
    .command('rm <documentId>')
    .description('remove a document and everything that exists only because of it')
    .requiredOption('--kb <name>', 'knowledge base')
    .action(async (documentId: string, opts: { kb: string }) => {
      await call('docs:remove', { kb: opts.kb, id: documentIdArg(documentId) });
      out({ removed: documentId }, () => console.log(`Removed document ${documentId}`));
      await storeSynced(opts.kb);
    });

  program
    .command('reindex <documentId>')
    .description('drop what was extracted from a document and queue it again (then run `polyhop index`)')
    .requiredOption('--kb <name>', 'knowledge base')
    .action(async (documentId: string, opts: { kb: string }) => {
      const result = await call('docs:reindex', { kb: opts.kb, id: documentIdArg(documentId) });
      out(result, () => {
        console.log(`Queued ${result.added.map((d) => d.title).join(', ') || 'nothing'} for indexing.`);
        for (const e of result.errors) console.log(`  error: ${e.path}: ${e.reason}`);
      });
    });
}

/** A document id as `docs` and `ask` print it. */
export function documentIdArg(text: string): number {
  const id = Number(text);
  if (!(Number.isInteger(id) && id > 0))
    throw new CliError(`"${text}" is not a document id (a positive integer, as ask and docs print it)`);
  return id;
}

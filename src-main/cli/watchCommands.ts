import type { Command } from 'commander';
import { resolve } from 'node:path';
import type { Method, Request, Responses } from '../engine/api/contract.js';
import type { Engine } from '../engine/api/Engine.js';

export interface WatchCommandContext {
  call: <M extends Method>(method: M, request: Request<M>) => Promise<Responses[M]>;
  getEngine: () => Promise<Engine>;
  out: (value: unknown, human: () => void) => void;
  fail: (message: string) => never;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/**
 * `polyhop watch --kb NAME` follows a KB's watched folders in the foreground until Ctrl-C;
 * `watch add|remove|list` edit the list (`polyhop add DIR --watch` adds and watches at once).
 */
export function registerWatchCommands(program: Command, { call, getEngine, out, fail }: WatchCommandContext): void {
  const kbOf = (): string =>
    watch.opts<{ kb?: string }>().kb ?? fail("error: required option '--kb <name>' not specified");
  const watch = program
    .command('watch')
    .description(
      'keep folders in sync with a knowledge base: follow them in the foreground until Ctrl-C (catching up first)',
    )
    // The sub-commands read --kb from here: commander gives an option a parent declares to the parent.
    .option('--kb <name>', 'knowledge base')
    .action(async () => {
      const opts = { kb: kbOf() };
      const engine = await getEngine();
      const folders = await call('watch:list', { kb: opts.kb });
      if (folders.length === 0)
        fail(`"${opts.kb}" has no watched folder; add one with \`polyhop watch add DIR --kb ${opts.kb}\``);
      const off = engine.onEvent((event) => {
        if (event.name === 'watch:synced') {
          const s = event.payload;
          console.log(
            `${s.at} ${s.path}: ${s.added} new or changed, ${s.renamed} moved, ${s.removed} removed, ${s.errors} skipped${s.jobId ? ' (indexing)' : ''}`,
          );
        } else if (event.name === 'job:finished' && event.payload.kind === 'index') {
          console.log(
            `indexing ${event.payload.status}${event.payload.error ? `: ${event.payload.error.message}` : ''}`,
          );
        }
      });
      await engine.watches.start(opts.kb);
      for (const f of await call('watch:list', { kb: opts.kb }))
        console.log(`watching ${f.path} (${f.mode}${f.message ? `: ${f.message}` : ''})`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      off();
      // Syncs in flight end whole; a running index job stops with its checkpoints (the next start resumes it).
      await engine.watches.dispose();
    });

  watch
    .command('add <dir>')
    .description(
      'keep a folder in sync with a knowledge base (followed while `polyhop watch`, browser mode or the window runs)',
    )
    .option('--ignore <pattern>', 'glob to leave out, e.g. "*.bak" or "drafts/**" (repeatable)', collect, [])
    .action(async (dir: string, opts: { ignore: string[] }) => {
      const view = await call('watch:add', { kb: kbOf(), path: resolve(dir), ignore: opts.ignore });
      out(view, () => console.log(`Watching ${view.path} for "${view.kb}".`));
    });

  watch
    .command('remove <dir>')
    .description('stop keeping a folder in sync (its documents stay)')
    .action(async (dir: string) => {
      const result = await call('watch:remove', { kb: kbOf(), path: resolve(dir) });
      out(result, () => console.log(result.removed ? `No longer watching ${dir}.` : `${dir} was not watched.`));
    });

  watch
    .command('list')
    .description('watched folders and their last sync (of the --kb given, else of all)')
    .action(async () => {
      const kb = watch.opts<{ kb?: string }>().kb;
      const folders = await call('watch:list', kb ? { kb } : {});
      out(folders, () => {
        for (const f of folders) {
          const last = f.lastSync ? `last sync ${f.lastSync.at}` : 'not synced in this run';
          console.log(
            `${f.kb}\t${f.path}\t${f.mode}\t${last}${f.ignore.length ? `\tignore ${f.ignore.join(' ')}` : ''}`,
          );
        }
      });
    });
}

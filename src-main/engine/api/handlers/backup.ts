import type { Handlers } from '../dispatch.js';
import type { Engine } from '../Engine.js';

/** One-file backups of a KB (its SQLite file is all of it: the RDF view is derived) and verified restores. */
export function backupHandlers(engine: Engine): Pick<Handlers, 'kb:backup' | 'kb:restore'> {
  return {
    'kb:backup': ({ kb: name, outputPath }) => {
      const session = engine.kbs.get(name);
      const jobId = engine.jobs.start('backup', session.name, async ({ progress }) => {
        await session.kb.backup(outputPath, (done, total) =>
          progress({ stage: 'backup', done, total, message: 'pages' }),
        );
        return { outputPath };
      });
      return { jobId };
    },
    'kb:restore': ({ inputPath, name, replace }) => {
      const jobId = engine.jobs.start('restore', name, async ({ progress }) => {
        progress({ stage: 'restore', done: 0, total: 1, message: 'verifying' });
        await engine.kbs.restore(inputPath, name, replace);
        progress({ stage: 'restore', done: 1, total: 1, message: 'restored' });
        return { name };
      });
      return { jobId };
    },
  };
}

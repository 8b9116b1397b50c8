import type { Handlers } from '../dispatch.js';
import type { Engine } from '../Engine.js';

type ModelMethods =
  | 'models:list'
  | 'models:catalog'
  | 'models:status'
  | 'models:load'
  | 'models:unload'
  | 'models:inspect'
  | 'models:import'
  | 'models:remove'
  | 'models:download'
  | 'models:try';

export function modelHandlers(engine: Engine): Pick<Handlers, ModelMethods> {
  const { modelFiles, models } = engine;
  return {
    'models:list': () => modelFiles.list(),
    'models:catalog': () => modelFiles.catalog(),
    'models:status': () => models.status(),
    'models:load': ({ role, ...selection }) => models.load(role, selection),
    'models:unload': async ({ role }) => ({ unloaded: await models.unload(role) }),
    'models:inspect': ({ path }) => modelFiles.inspect(path),
    'models:import': ({ path, mode }) => modelFiles.import(path, mode),
    'models:remove': async ({ file }) => {
      await modelFiles.remove(file);
      return { removed: true as const };
    },
    'models:download': ({ catalogId }) => ({
      jobId: engine.jobs.start('download', null, ({ signal, progress }) =>
        modelFiles.download(catalogId, {
          signal,
          onProgress: (p) =>
            progress({ stage: 'download', done: p.downloadedBytes, total: p.totalBytes, message: catalogId }),
        }),
      ),
    }),
    'models:try': async ({ prompt, maxTokens }) => {
      const llm = await models.requireGeneration('Trying a prompt');
      const rendered = engine.prompts.render('models/try', { prompt });
      const result = await llm.generateText(rendered, { maxTokens });
      return {
        text: result.text,
        promptTokens: result.usage.promptTokens,
        completionTokens: result.usage.completionTokens,
        ms: result.usage.durationMs,
      };
    },
  };
}

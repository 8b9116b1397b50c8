import type { Handlers } from '../dispatch.js';
import type { Engine } from '../Engine.js';

export function watchHandlers(engine: Engine): Pick<Handlers, 'watch:add' | 'watch:remove' | 'watch:list'> {
  return {
    'watch:add': ({ kb, path, ignore }) => engine.watches.add(kb, path, ignore),
    'watch:remove': async ({ kb, path }) => ({ removed: await engine.watches.remove(kb, path) }),
    'watch:list': ({ kb }) => engine.watches.list(kb),
  };
}

import type { Handlers } from '../dispatch.js';
import type { Engine } from '../Engine.js';

type StoreMethods = 'store:set' | 'store:show' | 'store:publish' | 'store:sync' | 'store:remove';

export function storeHandlers(engine: Engine): Pick<Handlers, StoreMethods> {
  const { stores } = engine;
  return {
    'store:set': (request) => stores.set(request),
    'store:show': ({ kb, probe }) => (probe ? stores.probe(kb) : stores.status(kb)),
    'store:publish': ({ kb, takeOver }) => ({ jobId: stores.start(kb, true, takeOver) }),
    'store:sync': ({ kb }) => ({ jobId: stores.start(kb, false) }),
    'store:remove': ({ kb }) => ({ removed: stores.remove(kb) }),
  };
}

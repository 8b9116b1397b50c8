import { PolyhopError } from '../../base/errors.js';
import {
  endpointConfigSchema,
  type EndpointConfig,
  type EndpointStatus,
} from '../../models/endpoints/EndpointConfig.js';
import { probeEndpoint } from '../../models/endpoints/probeEndpoint.js';
import type { Handlers } from '../dispatch.js';
import type { Engine } from '../Engine.js';

type EndpointMethods = 'endpoints:list' | 'endpoints:add' | 'endpoints:remove' | 'endpoints:test';

/** OpenAI-compatible inference servers, kept in settings `endpoints`; no reply carries a key. */
export function endpointHandlers(engine: Engine): Pick<Handlers, EndpointMethods> {
  const configured = (): EndpointConfig[] => engine.settings.get().endpoints as EndpointConfig[];
  const find = (id: string): EndpointConfig => {
    const endpoint = configured().find((e) => e.id === id);
    if (!endpoint)
      throw new PolyhopError('NOT_FOUND', `No inference server "${id}" (see \`polyhop models endpoint list\`)`, {
        details: { id },
      });
    return endpoint;
  };
  const statusOf = (id: string): EndpointStatus =>
    engine.models.endpointStatus().find((s) => s.id === id) as EndpointStatus;
  return {
    'endpoints:list': () => engine.models.endpointStatus(),
    'endpoints:add': (request) => {
      const parsed = endpointConfigSchema.safeParse(request);
      if (!parsed.success) {
        throw new PolyhopError(
          'INVALID_REQUEST',
          `Invalid inference server: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
        );
      }
      if (configured().some((e) => e.id === parsed.data.id))
        throw new PolyhopError('ALREADY_EXISTS', `An inference server "${parsed.data.id}" exists already`, {
          details: { id: parsed.data.id },
        });
      engine.settings.update({ endpoints: [...configured(), parsed.data] });
      return statusOf(parsed.data.id);
    },
    'endpoints:remove': ({ id }) => {
      find(id);
      engine.settings.update({ endpoints: configured().filter((e) => e.id !== id) });
      return { removed: true as const };
    },
    'endpoints:test': async ({ id }) => {
      // probeEndpoint masks the key in whatever the server or the client library said.
      return probeEndpoint(find(id));
    },
  };
}

import { PolyhopError, toErrorData } from '../base/errors.js';
import { requestSchemas, type Method, type ParsedRequest, type Reply, type Responses } from './contract.js';

/** One handler per method; the engine provides them (see Engine.ts). */
export type Handlers = { [M in Method]: (request: ParsedRequest<M>) => Promise<Responses[M]> | Responses[M] };

function isMethod(name: unknown): name is Method {
  return typeof name === 'string' && Object.hasOwn(requestSchemas, name);
}

/**
 * The single entry every front door goes through: validates `(method, payload)` against the
 * contract's schema, calls the handler, and turns any failure into `{ ok: false, error }` data.
 * A malformed request gets a typed INVALID_REQUEST error; nothing here throws.
 */
export async function dispatch(handlers: Handlers, method: unknown, payload: unknown): Promise<Reply<unknown>> {
  try {
    if (!isMethod(method)) throw new PolyhopError('INVALID_REQUEST', `Unknown method: ${String(method).slice(0, 100)}`);
    const parsed = requestSchemas[method].safeParse(payload ?? {});
    if (!parsed.success) {
      // Capped: an issue can quote the payload (every unknown key), and replies must stay small.
      const issues = parsed.error.issues
        .slice(0, 10)
        .map((i) => ({ path: clip(i.path.map(String).join('.')), message: clip(i.message) }));
      throw new PolyhopError(
        'INVALID_REQUEST',
        `Invalid request for ${method}: ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`,
        {
          details: { issues },
        },
      );
    }
    const handler = handlers[method] as (request: unknown) => Promise<unknown>;
    return { ok: true, value: await handler(parsed.data) };
  } catch (error) {
    const data = toErrorData(error);
    if (data.code === 'INTERNAL') console.error(`[polyhop] ${String(method)} failed:`, error);
    return { ok: false, error: data };
  }
}

const clip = (text: string, max = 200): string => (text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * The renderer's only door to the engine: a {@link PolyhopApi} over Electron's preload bridge
 * (`window.polyhop`) or, in browser mode, over `POST /api/<method>` plus a `/events` WebSocket,
 * both authorised by the per-run token the server printed in the URL fragment.
 */
import type {
  ErrorData,
  EventName,
  Events,
  Method,
  PolyhopApi,
  Reply,
  Request,
  Responses,
} from '../../src-main/engine/api/contract.js';
import type { PolyhopBridge } from './bridge.js';
import { EVENT_NAMES } from './contractValues.js';

declare global {
  interface Window {
    /** The desktop window's preload bridge; absent in browser mode. */
    polyhop?: PolyhopBridge;
  }
}

/** A failed call, carrying the engine's error data (`code` is a PolyhopErrorCode or a transport code). */
export class ApiError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown>;

  constructor(data: ErrorData) {
    super(data.message);
    this.name = 'ApiError';
    this.code = data.code;
    this.details = data.details ?? {};
  }
}

/** Transport-level codes, beside the engine's own. */
export const UNREACHABLE = 'UNREACHABLE';

const TOKEN_KEY = 'polyhop.token';

type Listener = (payload: unknown) => void;

/** Fans one raw event stream out to typed per-event listeners. */
class EventHub {
  readonly #listeners = new Map<string, Set<Listener>>();

  emit(name: string, payload: unknown): void {
    if (!(EVENT_NAMES as string[]).includes(name)) return;
    for (const listener of this.#listeners.get(name) ?? []) {
      try {
        listener(payload);
      } catch (error) {
        console.error(`polyhop: listener for ${name} failed`, error);
      }
    }
  }

  on(name: string, listener: Listener): () => void {
    let set = this.#listeners.get(name);
    if (!set) this.#listeners.set(name, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  get size(): number {
    let n = 0;
    for (const set of this.#listeners.values()) n += set.size;
    return n;
  }
}

function unwrap<T>(reply: Reply<T>): T {
  if (reply && typeof reply === 'object' && 'ok' in reply) {
    if (reply.ok) return reply.value;
    throw new ApiError(reply.error);
  }
  throw new ApiError({ code: 'INTERNAL', message: 'The engine sent a malformed reply.', details: {} });
}

function electronClient(bridge: PolyhopBridge): PolyhopApi {
  const hub = new EventHub();
  bridge.onEvent((event) => hub.emit(event.name, event.payload));
  return {
    async call<M extends Method>(method: M, request: Request<M>): Promise<Responses[M]> {
      return unwrap((await bridge.invoke(method, request)) as Reply<Responses[M]>);
    },
    on<E extends EventName>(event: E, listener: (payload: Events[E]) => void) {
      return hub.on(event, listener as Listener);
    },
  };
}

/** Reads `#token=…` once, keeps it for the tab's session and scrubs it from the address bar. */
export function takeBrowserToken(): string | null {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (match?.[1]) {
    const token = decodeURIComponent(match[1]);
    sessionStorage.setItem(TOKEN_KEY, token);
    history.replaceState(history.state, '', location.pathname + location.search);
    return token;
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

/** Options for {@link browserClient}; defaults come from the page's own origin. */
export interface BrowserClientOptions {
  /** Per-run secret; default: from the URL fragment or sessionStorage. */
  token?: string | null;
  /** Origin of the server, e.g. `http://127.0.0.1:5123`; default `location.origin`. */
  origin?: string;
  /** Longest wait between WebSocket reconnects, in ms; default 10 000. */
  maxBackoffMs?: number;
}

function browserClient(options: BrowserClientOptions = {}): PolyhopApi {
  const token = options.token === undefined ? takeBrowserToken() : options.token;
  const origin = options.origin ?? location.origin;
  const maxBackoff = options.maxBackoffMs ?? 10_000;
  const hub = new EventHub();
  let socket: WebSocket | null = null;
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;

  const connect = (): void => {
    if (!token || socket) return;
    const url = `${origin.replace(/^http/, 'ws')}/events?token=${encodeURIComponent(token)}`;
    const ws = new WebSocket(url);
    socket = ws;
    ws.onopen = () => {
      attempt = 0;
    };
    ws.onmessage = (message) => {
      try {
        const event = JSON.parse(String(message.data)) as { name?: unknown; payload?: unknown };
        if (typeof event.name === 'string') hub.emit(event.name, event.payload);
      } catch {
        console.warn('polyhop: ignored a malformed event');
      }
    };
    ws.onclose = () => {
      socket = null;
      // Exponential backoff with jitter, so a restarting server is not hammered.
      const delay = Math.min(maxBackoff, 250 * 2 ** attempt++) * (0.75 + Math.random() * 0.5);
      timer = setTimeout(() => {
        timer = null;
        connect();
      }, delay);
    };
  };

  return {
    async call<M extends Method>(method: M, request: Request<M>): Promise<Responses[M]> {
      if (!token) {
        throw new ApiError({
          code: 'UNAUTHORIZED',
          message: 'No access token: open the link printed by "polyhop serve".',
          details: {},
        });
      }
      let response: Response;
      try {
        response = await fetch(`${origin}/api/${encodeURIComponent(method)}`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(request ?? {}),
        });
      } catch (error) {
        throw new ApiError({
          code: UNREACHABLE,
          message: 'The Polyhop server is not reachable. Is it still running?',
          details: { cause: String(error) },
        });
      }
      let reply: Reply<Responses[M]>;
      try {
        reply = (await response.json()) as Reply<Responses[M]>;
      } catch {
        throw new ApiError({
          code: response.status === 401 ? 'UNAUTHORIZED' : 'INTERNAL',
          message: `The server answered ${response.status} without a readable reply.`,
          details: { status: response.status },
        });
      }
      return unwrap(reply);
    },
    on<E extends EventName>(event: E, listener: (payload: Events[E]) => void) {
      connect();
      const off = hub.on(event, listener as Listener);
      return () => {
        off();
        if (hub.size === 0 && timer) {
          clearTimeout(timer);
          timer = null;
        }
      };
    },
  };
}

/** The bridge in Electron, HTTP + WebSocket elsewhere. */
export function createClient(options?: BrowserClientOptions): PolyhopApi {
  // Checked member by member: a page given only part of a bridge (a test's dialogs double) keeps HTTP.
  return typeof window.polyhop?.invoke === 'function' ? electronClient(window.polyhop) : browserClient(options);
}

let shared: PolyhopApi | null = null;

/** The page's one client, created on first use. */
export function api(): PolyhopApi {
  return (shared ??= createClient());
}

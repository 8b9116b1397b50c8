import { asCancelled, throwIfAborted } from '../../base/abort.js';
import { PolyhopError } from '../../base/errors.js';
import type { EndpointConfig, EndpointStatus } from './EndpointConfig.js';
import { busyRetryAfterMs, isEndpointBusy, isEndpointFailure } from './endpointErrors.js';
import { probeEndpoint } from './probeEndpoint.js';

/** A model served by one endpoint (OpenAiLlm, OpenAiEmbedder). */
export interface EndpointModel {
  readonly identity: string;
  readonly servedModel: string;
  /** Requests the server says it runs at once (llama-server `total_slots`); undefined when it does not say. */
  readonly slots?: number | undefined;
  dispose(): Promise<void>;
}

/** A wait an endpoint caused, for the user: the server is busy or still loading, and the call waits instead of failing. */
export interface EndpointNotice {
  endpoint: string;
  role: EndpointConfig['role'];
  message: string;
}

export interface EndpointPoolOptions<M extends EndpointModel> {
  /** Connects to one endpoint (asks what it serves); rejects with an endpoint failure when it is unreachable. */
  connect: (config: EndpointConfig, signal?: AbortSignal) => Promise<M>;
  /** How often endpoints out of the pool are probed. Default 5 s. */
  healthIntervalMs?: number;
  /**
   * How long a call waits for an endpoint to come back when all are down, and how long the pool's
   * creation waits for a server still starting (refusing connections, or 503 "Loading model"),
   * before it fails. Default 120 s.
   */
  allDownWaitMs?: number;
  /** How long one call may wait in all on an endpoint that answers busy (429, any 503) before it fails. Default 120 s. */
  busyWaitMs?: number;
  /** Told of every wait an endpoint causes (busy, loading), so the user sees why a job slows. */
  onNotice?: (notice: EndpointNotice) => void;
}

/** First pause after a busy reply without `Retry-After`, doubled each time up to {@link BUSY_MAX_PAUSE_MS}. */
const BUSY_FIRST_PAUSE_MS = 1_000;
const BUSY_MAX_PAUSE_MS = 30_000;

interface Member<M> {
  config: EndpointConfig;
  model: M | null;
  health: EndpointStatus['health'];
  inFlight: number;
  calls: number;
  failures: number;
  lastError: string | null;
  checking: boolean;
  /** Until when the endpoint asked not to be sent calls (busy); 0 when it did not. */
  busyUntil: number;
  notice: string | null;
}

/**
 * Endpoints of one role serving one model. A call goes to the endpoint with the most free slots
 * (its `concurrency` minus calls in flight), waiting when all are busy. An endpoint whose call
 * fails for the endpoint's sake (unreachable, reset, 5xx other than 503, stalled: see endpointErrors) is
 * taken out and the call runs again on another, so a job survives an endpoint dying mid-call; a
 * request error (a 400) fails the call as it would everywhere. Endpoints out of the pool are probed
 * every few seconds and come back when they answer and serve the same model. With all of them
 * down, a call waits up to `allDownWaitMs`, then fails naming each endpoint and its last error.
 *
 * A busy endpoint (429, or 503 in any wording: "server busy", "Loading model") is healthy: it stays in, gets no call
 * until the pause it asked for (`Retry-After`, else 1 s doubling up to 30 s) is over, and the call
 * is asked again, up to `busyWaitMs` in all, each wait told through `onNotice`. An endpoint's
 * slots are its configured concurrency, capped to what the server says it runs at once.
 */
export class EndpointPool<M extends EndpointModel> {
  readonly identity: string;
  readonly #members: Member<M>[];
  readonly #connect: EndpointPoolOptions<M>['connect'];
  readonly #allDownWaitMs: number;
  readonly #busyWaitMs: number;
  readonly #onNotice: EndpointPoolOptions<M>['onNotice'];
  readonly #timer: NodeJS.Timeout;
  readonly #waiters = new Set<() => void>();
  #disposed = false;

  private constructor(members: Member<M>[], identity: string, options: EndpointPoolOptions<M>) {
    this.#members = members;
    this.identity = identity;
    this.#connect = options.connect;
    this.#allDownWaitMs = options.allDownWaitMs ?? 120_000;
    this.#busyWaitMs = options.busyWaitMs ?? 120_000;
    this.#onNotice = options.onNotice;
    this.#timer = setInterval(() => this.#checkDown(), options.healthIntervalMs ?? 5_000);
    this.#timer.unref();
  }

  /**
   * Connects to every endpoint at once. At least one must answer, and all that answer must serve
   * the same model (same identity), else it refuses; the others start out of the pool. When none
   * answers because every server is still starting (refusing connections, busy or loading: endpoint
   * failures, not refusals), it waits for one up to `allDownWaitMs`, saying so, as a running job does.
   */
  static async create<M extends EndpointModel>(
    configs: readonly EndpointConfig[],
    options: EndpointPoolOptions<M>,
    signal?: AbortSignal,
  ): Promise<EndpointPool<M>> {
    if (configs.length === 0) throw new PolyhopError('BAD_INPUT', 'An endpoint pool needs at least one endpoint');
    let settled = await Promise.allSettled(configs.map((c) => options.connect(c, signal)));
    const deadline = Date.now() + (options.allDownWaitMs ?? 120_000);
    let told = 0;
    for (let pause = BUSY_FIRST_PAUSE_MS; ; pause = Math.min(2 * pause, 5_000)) {
      const starting = settled.every(
        (s) => s.status === 'rejected' && (isEndpointFailure(s.reason) || isEndpointBusy(s.reason)),
      );
      const left = deadline - Date.now();
      if (!starting || left <= 0 || signal?.aborted) break;
      const first = settled[0] as PromiseRejectedResult;
      // Said at once, then every 15 s while it lasts.
      if (Date.now() - told >= 15_000) {
        told = Date.now();
        options.onNotice?.({
          endpoint: configs[0]?.id ?? '',
          role: configs[0]?.role ?? 'generation',
          message:
            `No ${configs[0]?.role} endpoint answers yet (${configs[0]?.id}: ${errorText(first.reason)}); ` +
            `waiting up to ${Math.ceil(left / 1000)} s more for one to start`,
        });
      }
      await sleep(Math.min(pause, left), signal);
      settled = await Promise.allSettled(configs.map((c) => options.connect(c, signal)));
    }
    const members: Member<M>[] = configs.map((config, i) => {
      const s = settled[i] as PromiseSettledResult<M>;
      const up = s.status === 'fulfilled';
      return {
        config,
        model: up ? s.value : null,
        health: up ? 'up' : 'down',
        inFlight: 0,
        calls: 0,
        failures: up ? 0 : 1,
        lastError: up ? null : errorText(s.reason),
        checking: false,
        busyUntil: 0,
        notice: null,
      };
    });
    const disposeAll = () => Promise.all(members.map((m) => m.model?.dispose()));
    if (signal?.aborted) {
      await disposeAll();
      throw asCancelled(signal.reason);
    }
    const up = members.filter((m) => m.model);
    const refused = settled.find((s) => s.status === 'rejected' && !isEndpointFailure(s.reason));
    if (up.length === 0) {
      if (refused?.status === 'rejected' && configs.length === 1) throw refused.reason;
      throw new PolyhopError('MODEL_ERROR', `No ${configs[0]?.role} endpoint answers: ${describe(members)}`, {
        details: { endpoints: members.map((m) => m.config.id) },
      });
    }
    const identities = new Set(up.map((m) => (m.model as M).identity));
    if (identities.size > 1) {
      await disposeAll();
      throw new PolyhopError(
        'BAD_INPUT',
        `The ${configs[0]?.role} endpoints serve different models, and one pool runs one model: ` +
          up.map((m) => `${m.config.id} serves ${(m.model as M).servedModel} (${(m.model as M).identity})`).join('; '),
        {
          details: { endpoints: up.map((m) => ({ id: m.config.id, identity: (m.model as M).identity })) },
        },
      );
    }
    return new EndpointPool(members, (up[0]?.model as M).identity, options);
  }

  /** A model of the pool (for what all members share: the tokenizer, the dimension). */
  get sample(): M {
    const m = this.#members.find((x) => x.health === 'up' && x.model) ?? this.#members.find((x) => x.model);
    return m?.model as M;
  }

  /** Calls the pool can run at once: the slots of the endpoints in it (at least 1, so callers keep going while all are down). */
  get parallelism(): number {
    return Math.max(
      1,
      this.#members.filter((m) => m.health !== 'down').reduce((n, m) => n + slotsOf(m), 0),
    );
  }

  /** Models of the endpoints that connected (e.g. for the smallest context of them). */
  get models(): M[] {
    return this.#members.flatMap((m) => (m.model ? [m.model] : []));
  }

  status(): EndpointStatus[] {
    return this.#members.map((m) => ({
      id: m.config.id,
      role: m.config.role,
      baseUrl: m.config.baseUrl,
      model: m.config.model,
      hasApiKey: m.config.apiKey !== undefined,
      concurrency: m.config.concurrency,
      health: m.health,
      servedModel: m.model?.servedModel ?? null,
      inFlight: m.inFlight,
      calls: m.calls,
      failures: m.failures,
      lastError: m.lastError,
      ...(m.model?.slots !== undefined ? { slots: m.model.slots } : {}),
      notice: m.notice,
    }));
  }

  /**
   * Runs `call` on an endpoint with a free slot; when it fails for the endpoint's sake, takes that
   * endpoint out and runs it again elsewhere; when the endpoint is busy, pauses it and asks again
   * (see the class). `onRetry` is told before a call runs again.
   */
  async run<T>(
    call: (model: M, signal?: AbortSignal) => Promise<T>,
    signal?: AbortSignal,
    onRetry?: () => void,
  ): Promise<T> {
    // A request that brings down every endpoint it meets must not go round for ever.
    const attempts = 2 * this.#members.length + 1;
    let failed = 0;
    let busyWaited = 0;
    let pause = BUSY_FIRST_PAUSE_MS;
    let last: unknown;
    for (;;) {
      const member = await this.#acquire(signal);
      try {
        return await call(member.model as M, signal);
      } catch (error) {
        if (signal?.aborted) throw error;
        if (isEndpointBusy(error)) {
          const asked = busyRetryAfterMs(error);
          const wait = asked ?? pause;
          pause = Math.min(2 * pause, BUSY_MAX_PAUSE_MS);
          if (busyWaited + wait > this.#busyWaitMs) {
            throw new PolyhopError(
              'MODEL_ERROR',
              `Endpoint ${member.config.id} stayed busy (waited ${Math.round(busyWaited / 1000)} s in all): ${errorText(error)}`,
              {
                details: { endpoint: member.config.id, busy: true },
              },
            );
          }
          busyWaited += wait;
          member.busyUntil = Math.max(member.busyUntil, Date.now() + wait);
          this.#notify(
            member,
            `${member.config.id} is busy (${errorText(error)}); ` +
              `asking again in ${Math.ceil(wait / 1000)} s${asked !== undefined ? ' as it asked (Retry-After)' : ''}`,
          );
          onRetry?.();
          continue;
        }
        if (!isEndpointFailure(error)) throw error;
        last = error;
        this.#takeOut(member, error);
        if (++failed >= attempts) break;
        onRetry?.();
      } finally {
        member.inFlight--;
        this.#wake();
      }
    }
    throw new PolyhopError('MODEL_ERROR', `A call failed on ${attempts} endpoint attempts: ${errorText(last)}`, {
      details: { endpoints: this.#members.map((m) => m.config.id) },
    });
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    clearInterval(this.#timer);
    this.#wake();
    await Promise.all(this.#members.map((m) => m.model?.dispose()));
  }

  /** An endpoint with a free slot, the slot already taken (released in {@link run}). */
  async #acquire(signal?: AbortSignal): Promise<Member<M>> {
    let deadline: number | null = null;
    for (;;) {
      throwIfAborted(signal);
      if (this.#disposed)
        throw new PolyhopError('MODEL_ERROR', 'The endpoint pool was closed (the endpoint settings changed)');
      const usable = this.#members.filter((m) => m.health !== 'down' && m.model);
      const now = Date.now();
      const free = usable.filter((m) => m.inFlight < slotsOf(m) && m.busyUntil <= now);
      if (free.length > 0) {
        // Most free slots first, then the least used, so the load spreads by concurrency.
        free.sort((a, b) => slotsOf(b) - b.inFlight - (slotsOf(a) - a.inFlight) || a.calls - b.calls);
        const chosen = free[0] as Member<M>;
        // Taken here, before any await, so callers starting together see each other's slots.
        chosen.inFlight++;
        chosen.calls++;
        return chosen;
      }
      if (usable.length === 0) {
        deadline ??= Date.now() + this.#allDownWaitMs;
        const left = deadline - Date.now();
        if (left <= 0) {
          throw new PolyhopError(
            'MODEL_ERROR',
            `Every ${this.#members[0]?.config.role} endpoint is down ` +
              `(waited ${Math.round(this.#allDownWaitMs / 1000)} s for one to return): ${describe(this.#members)}`,
            {
              details: { endpoints: this.#members.map((m) => ({ id: m.config.id, lastError: m.lastError })) },
            },
          );
        }
        this.#checkDown();
        await this.#wait(signal, left);
      } else {
        deadline = null;
        // A paused (busy) endpoint frees itself by time, not by an event.
        const paused = usable.filter((m) => m.busyUntil > now).map((m) => m.busyUntil - now);
        await this.#wait(signal, paused.length > 0 ? Math.min(...paused) : undefined);
      }
    }
  }

  /** Resolves on the next change of slots or health (or after `ms`); rejects on abort. */
  #wait(signal?: AbortSignal, ms?: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        this.#waiters.delete(done);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        done();
        reject(asCancelled(signal?.reason));
      };
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.add(done);
    });
  }

  #wake(): void {
    for (const w of [...this.#waiters]) w();
  }

  #notify(member: Member<M>, message: string): void {
    member.notice = `${new Date().toISOString()}: ${message}`;
    this.#onNotice?.({ endpoint: member.config.id, role: member.config.role, message });
  }

  #takeOut(member: Member<M>, error: unknown): void {
    member.failures++;
    member.lastError = errorText(error);
    member.health = 'down';
    this.#wake();
  }

  /** Probes every endpoint out of the pool; one that answers is connected again and, if it serves the pool's model, put back. */
  #checkDown(): void {
    for (const member of this.#members) {
      if (member.health !== 'down' || member.checking || this.#disposed) continue;
      member.checking = true;
      void this.#revive(member).finally(() => {
        member.checking = false;
        this.#wake();
      });
    }
  }

  async #revive(member: Member<M>): Promise<void> {
    const probe = await probeEndpoint(member.config, { roleCall: false });
    if (!probe.ok || this.#disposed) {
      if (probe.error) member.lastError = probe.error;
      return;
    }
    try {
      const model = await this.#connect(member.config);
      if (model.identity !== this.identity) {
        await model.dispose();
        member.lastError = `now serves ${model.servedModel} (${model.identity}), not the pool's ${this.identity}`;
        return;
      }
      const old = member.model;
      member.model = model;
      member.health = 'up';
      if (old && old !== model) await old.dispose();
    } catch (error) {
      member.lastError = errorText(error);
    }
  }
}

/** An endpoint's slots: its configured concurrency, capped to what the server says it runs at once. */
function slotsOf(member: Member<EndpointModel>): number {
  return Math.min(member.config.concurrency, member.model?.slots ?? Infinity);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      done();
      reject(asCancelled(signal?.reason));
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function describe(members: readonly Member<unknown>[]): string {
  return members.map((m) => `${m.config.id} (${m.config.baseUrl}): ${m.lastError ?? m.health}`).join('; ');
}

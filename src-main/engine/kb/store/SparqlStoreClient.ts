import { PolyhopError } from '../../base/errors.js';
import { type DigestChallenge, digestAuthorization, parseDigestChallenge } from './digestAuth.js';
import type { StoreConfig } from './StoreConfig.js';

/** The `fetch` the client sends with; tests pass one that records. Default: the global fetch. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface StoreRequestOptions {
  /** Limit for this request in ms. Default: the config's `requestTimeoutMs`. */
  timeoutMs?: number;
  /**
   * Sending it twice does no harm, so it is sent again once when the connection drops before an
   * answer (a kept-alive connection the server closed just then). Default: true; Polyhop's own
   * writes are (each deletes before it writes, and graphs are sets); a user's update may not be.
   */
  idempotent?: boolean;
  /**
   * `when-asked`: send no credentials until this URL answers 401, so a read runs with the least
   * rights the endpoint grants (Virtuoso's anonymous /sparql cannot run `bif:exec` updates, its
   * /sparql-auth can); once asked, the client remembers and signs in at once. Default: `always`
   * (Polyhop's own publishing and sync).
   */
  credentials?: 'always' | 'when-asked';
  /** Queries: the default graph (`default-graph-uri`). Default: the KB's graph. */
  defaultGraph?: string;
  signal?: AbortSignal;
}

export interface SelectResult {
  columns: string[];
  rows: Record<string, string | null>[];
  truncated: boolean;
  /** The server cut its answer at this many rows (its `X-SPARQL-MaxRows` header; Virtuoso sends it only then); null if it did not say so. */
  storeMaxRows: number | null;
}

interface SparqlJsonTerm {
  type: string;
  value: string;
}

/**
 * Speaks the three standard protocols to one store: SPARQL 1.1 Protocol (queries, POSTed as a
 * form with `default-graph-uri` set to the KB's graph), SPARQL 1.1 Update (`update=` form) and the
 * Graph Store HTTP Protocol (`?graph=`, Turtle bodies). Nothing else, so any conforming server
 * works. Auth is none, Basic, or Digest (RFC 7616: MD5 or SHA-256, qop=auth); a Digest challenge
 * is reused, with a fresh nonce count per request, until the server sends a new one.
 *
 * Errors name the endpoint's origin and the server's reason, never the credentials.
 */
export class SparqlStoreClient {
  readonly #config: StoreConfig;
  readonly #fetch: FetchLike;
  #challenge: DigestChallenge | null = null;
  #nonceCount = 0;
  /** URLs that answered a request without credentials with 401. */
  readonly #askedForCredentials = new Set<string>();
  readonly #waitTickMs: number;
  /**
   * Told every `waitTickMs` while a request waits for the store's answer (how long so far, and the
   * request's limit), so a publish against a store that accepts connections and never answers is
   * not silent until its timeout. The publish job sets it for its run.
   */
  onWaiting: ((waitedMs: number, timeoutMs: number) => void) | null = null;
  #knownMaxRows: number | null = null;

  constructor(config: StoreConfig, options: { fetch?: FetchLike; waitTickMs?: number } = {}) {
    this.#config = config;
    this.#fetch = options.fetch ?? ((url, init) => fetch(url, init));
    this.#waitTickMs = options.waitTickMs ?? 5000;
  }

  get graphIri(): string {
    return this.#config.graphIri;
  }

  /**
   * The store's row limit, once a SELECT answer was cut and said so (`X-SPARQL-MaxRows`). Virtuoso
   * cuts CONSTRUCT/DESCRIBE answers at the same limit without saying so (Virtuoso 7.2, Debian's
   * ResultSetMaxRows 10000: 10,000 triples, no header; test/runtime/storeVirtuosoTrust.test.ts).
   */
  get knownMaxRows(): number | null {
    return this.#knownMaxRows;
  }

  async select(query: string, maxRows: number, options: StoreRequestOptions = {}): Promise<SelectResult> {
    const response = await this.#query(query, 'application/sparql-results+json', options);
    const header = Number.parseInt(response.headers.get('x-sparql-maxrows') ?? '', 10);
    const json = (await response.json()) as {
      head: { vars?: string[] };
      results?: { bindings: Record<string, SparqlJsonTerm>[] };
    };
    const columns = json.head.vars ?? [];
    const bindings = json.results?.bindings ?? [];
    const rows = bindings
      .slice(0, maxRows)
      .map((binding) => Object.fromEntries(columns.map((c) => [c, binding[c] ? termText(binding[c]) : null])));
    const storeMaxRows = Number.isSafeInteger(header) && header > 0 ? header : null;
    if (storeMaxRows !== null) this.#knownMaxRows = storeMaxRows;
    return { columns, rows, truncated: bindings.length > maxRows || storeMaxRows !== null, storeMaxRows };
  }

  async ask(query: string, options: StoreRequestOptions = {}): Promise<boolean> {
    const json = (await (await this.#query(query, 'application/sparql-results+json', options)).json()) as {
      boolean?: boolean;
    };
    if (typeof json.boolean !== 'boolean')
      throw new PolyhopError(
        'STORE_ERROR',
        `SPARQL store ${origin(this.#config.queryUrl)}: an ASK query got no boolean answer`,
      );
    return json.boolean;
  }

  /** A CONSTRUCT/DESCRIBE result as text in the format the server chose of N-Triples or Turtle. */
  async graph(
    query: string,
    options: StoreRequestOptions = {},
  ): Promise<{ text: string; format: 'application/n-triples' | 'text/turtle'; storeMaxRows: number | null }> {
    const response = await this.#query(query, 'application/n-triples, text/turtle;q=0.9', options);
    const type = (response.headers.get('content-type') ?? '').toLowerCase();
    return {
      text: await response.text(),
      format: type.includes('turtle') ? 'text/turtle' : 'application/n-triples',
      storeMaxRows: maxRowsHeader(response),
    };
  }

  async update(sparql: string, options: StoreRequestOptions = {}): Promise<void> {
    const body = new URLSearchParams({ update: sparql });
    await this.#send(
      'POST',
      this.#config.updateUrl,
      { 'content-type': 'application/x-www-form-urlencoded' },
      body.toString(),
      options,
    );
  }

  /** Replaces the KB's graph with these statements (GSP PUT); N-Triples is sent as Turtle, which it is a subset of. */
  async replaceGraph(ntriples: string, options: StoreRequestOptions = {}): Promise<void> {
    await this.#send('PUT', this.#graphUrl(), { 'content-type': 'text/turtle; charset=utf-8' }, ntriples, options);
  }

  /** Adds statements to the KB's graph (GSP POST). */
  async addToGraph(ntriples: string, options: StoreRequestOptions = {}): Promise<void> {
    await this.#send('POST', this.#graphUrl(), { 'content-type': 'text/turtle; charset=utf-8' }, ntriples, options);
  }

  /**
   * Statements in the KB's graph: the query's default graph (`default-graph-uri`). A `GRAPH <g>`
   * pattern would find nothing on a store that follows the protocol, whose dataset then has no
   * named graphs (Virtuoso is lenient there).
   */
  async countGraph(options: StoreRequestOptions = {}): Promise<number> {
    const r = await this.select('SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }', 1, {
      ...options,
      defaultGraph: this.#config.graphIri,
    });
    return Number(r.rows[0]?.n ?? 0);
  }

  #graphUrl(): string {
    const url = new URL(this.#config.graphStoreUrl);
    url.searchParams.set('graph', this.#config.graphIri);
    return url.toString();
  }

  #query(query: string, accept: string, options: StoreRequestOptions): Promise<Response> {
    const body = new URLSearchParams({ query, 'default-graph-uri': options.defaultGraph ?? this.#config.graphIri });
    return this.#send(
      'POST',
      this.#config.queryUrl,
      { 'content-type': 'application/x-www-form-urlencoded', accept },
      body.toString(),
      options,
    );
  }

  async #send(
    method: string,
    url: string,
    headers: Record<string, string>,
    body: string,
    options: StoreRequestOptions,
  ): Promise<Response> {
    const timeoutMs = options.timeoutMs ?? this.#config.requestTimeoutMs;
    const started = Date.now();
    const ticker = setInterval(() => this.onWaiting?.(Date.now() - started, timeoutMs), this.#waitTickMs);
    try {
      return await this.#sendOnce(method, url, headers, body, options, timeoutMs);
    } finally {
      clearInterval(ticker);
    }
  }

  async #sendOnce(
    method: string,
    url: string,
    headers: Record<string, string>,
    body: string,
    options: StoreRequestOptions,
    timeoutMs: number,
  ): Promise<Response> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const anonymous =
      options.credentials === 'when-asked' && this.#config.auth.kind !== 'none' && !this.#askedForCredentials.has(url);
    const attempt = (signIn = !anonymous): Promise<Response> =>
      this.#fetch(url, {
        method,
        headers: { ...headers, ...(signIn ? this.#authHeader(method, url) : {}) },
        body,
        signal,
      });
    let response: Response;
    const retrying = async (send: () => Promise<Response>): Promise<Response> => {
      try {
        return await send();
      } catch (error) {
        if (options.idempotent === false || signal.aborted || !connectionDropped(error)) throw error;
        return send();
      }
    };
    try {
      // A server that wants Digest answers a request without it at once and may close the
      // connection while a large body is still being sent (Virtuoso does): ask for the challenge
      // with a bodiless HEAD first.
      if (this.#config.auth.kind === 'digest' && !this.#challenge && !anonymous)
        await retrying(() => this.#fetchChallenge(url, signal));
      response = await retrying(() => attempt());
      if (response.status === 401 && anonymous) this.#askedForCredentials.add(url);
      // No challenge yet, or a stale nonce: answer the new challenge once.
      if (response.status === 401 && this.#config.auth.kind === 'digest') {
        const challenge = parseDigestChallenge(response.headers.get('www-authenticate'));
        await response.arrayBuffer().catch(() => undefined);
        if (challenge) {
          this.#challenge = challenge;
          this.#nonceCount = 0;
          response = await attempt(true);
        }
      } else if (response.status === 401 && anonymous) {
        await response.arrayBuffer().catch(() => undefined);
        response = await attempt(true);
      }
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (timeout.aborted) {
        throw new PolyhopError('TIMEOUT', `SPARQL store ${origin(url)}: no answer within ${timeoutMs} ms`, {
          details: { timeoutMs, endpoint: origin(url) },
        });
      }
      const reason = networkReason(error);
      throw new PolyhopError('STORE_ERROR', `SPARQL store ${origin(url)} could not be reached: ${reason}`, {
        details: { endpoint: origin(url), reason },
        cause: error,
      });
    }
    if (response.ok) return response;
    const text = (await response.text().catch(() => '')).trim().slice(0, 1000);
    const details = { endpoint: origin(url), status: response.status, reason: text };
    if (response.status === 401 || response.status === 403) {
      throw new PolyhopError(
        'UNAUTHORIZED',
        `SPARQL store ${origin(url)} refused the credentials (HTTP ${response.status}); check the store's auth settings`,
        { details },
      );
    }
    // 400 is the protocol's answer to a malformed query or update (the store's own parser says where).
    const code = response.status === 400 ? 'BAD_INPUT' : 'STORE_ERROR';
    throw new PolyhopError(
      code,
      `SPARQL store ${origin(url)} answered HTTP ${response.status}${text ? `: ${text.split('\n')[0]}` : ''}`,
      { details },
    );
  }

  async #fetchChallenge(url: string, signal: AbortSignal): Promise<Response> {
    const response = await this.#fetch(url, { method: 'HEAD', signal });
    await response.arrayBuffer().catch(() => undefined);
    if (response.status === 401) {
      this.#challenge = parseDigestChallenge(response.headers.get('www-authenticate'));
      this.#nonceCount = 0;
    }
    return response;
  }

  #authHeader(method: string, url: string): Record<string, string> {
    const auth = this.#config.auth;
    switch (auth.kind) {
      case 'none':
        return {};
      case 'basic':
        return {
          authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`, 'utf8').toString('base64')}`,
        };
      case 'digest': {
        if (!this.#challenge) return {};
        const parsed = new URL(url);
        return {
          authorization: digestAuthorization(this.#challenge, auth, {
            method,
            uri: parsed.pathname + parsed.search,
            nc: ++this.#nonceCount,
          }),
        };
      }
    }
  }
}

/** The server cut its answer at this many rows (`X-SPARQL-MaxRows`; Virtuoso sends it only then). */
function maxRowsHeader(response: Response): number | null {
  const header = Number.parseInt(response.headers.get('x-sparql-maxrows') ?? '', 10);
  return Number.isSafeInteger(header) && header > 0 ? header : null;
}

function termText(term: SparqlJsonTerm): string {
  return term.type === 'bnode' ? `_:${term.value}` : term.value;
}

/** Scheme, host and port of an endpoint: what errors show (a path or query string could hold a token). */
function origin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}

/** The connection closed or reset under a request (as opposed to refused, or a timeout). */
function connectionDropped(error: unknown): boolean {
  const cause = error instanceof Error && error.cause ? error.cause : error;
  const code = cause && typeof cause === 'object' && 'code' in cause ? String((cause as { code: unknown }).code) : '';
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE';
}

function networkReason(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const code = cause && typeof cause === 'object' && 'code' in cause ? String((cause as { code: unknown }).code) : '';
  const message = cause instanceof Error ? cause.message : String(cause);
  return code && !message.includes(code) ? `${code} ${message}` : message;
}

import { join } from 'node:path';
import { PolyhopError, toErrorData } from '../base/errors.js';
import { knowledgeBaseRdfSource } from '../kb/rdf/knowledgeBaseRdfSource.js';
import { SparqlStoreClient } from '../kb/store/SparqlStoreClient.js';
import { type StoreConfig, redactStoreConfig, storeConfigSchema, storeTarget } from '../kb/store/StoreConfig.js';
import { StoreConfigFile } from '../kb/store/StoreConfigFile.js';
import { graphOwner } from '../kb/store/graphOwner.js';
import { syncStore } from '../kb/store/syncStore.js';
import type { ParsedRequest, StoreStatus } from './contract.js';
import type { Engine } from './Engine.js';
import type { KbSession } from './KbSessions.js';

/**
 * Each KB's external SPARQL store: its configuration (StoreConfigFile), one client per KB (so a
 * Digest challenge is reused), and the publish/sync jobs, one at a time per KB. A change while a
 * sync runs is picked up by another sync right after it; the journal in the KB says what to send.
 * Nothing is sent for a KB without a configured store.
 */
export class StoreService {
  readonly #engine: Engine;
  readonly #configs: StoreConfigFile;
  readonly #clients = new Map<string, { config: StoreConfig; client: SparqlStoreClient }>();
  readonly #running = new Map<string, string>();
  readonly #again = new Set<string>();
  /** KBs whose next publish may write into a graph another KB owns (asked for with `takeOver`). */
  readonly #takeOver = new Set<string>();

  constructor(engine: Engine) {
    this.#engine = engine;
    this.#configs = new StoreConfigFile(join(engine.paths.dataDir, 'stores.json'));
    // Indexing and imports change the records in bulk: follow them once they end (however they end).
    // A restored KB is an older copy whose journal knows nothing of what the store got since.
    engine.onEvent((event) => {
      if (event.name !== 'job:finished') return;
      const kb = engine.jobs.get(event.payload.jobId)?.kb;
      if (!kb) return;
      if (event.payload.kind === 'index' || event.payload.kind === 'import') this.changed(kb);
      else if (event.payload.kind === 'restore' && event.payload.status === 'done') this.#restored(kb);
    });
  }

  /** The URLs of every configured store (for the network allow-list). */
  urls(): string[] {
    return this.#configs.urls();
  }

  set(request: ParsedRequest<'store:set'>): StoreStatus {
    const session = this.#engine.kbs.get(request.kb);
    const id = this.#kbId(session);
    const previous = this.#configs.get(id);
    const auth =
      request.auth.kind === 'none'
        ? request.auth
        : {
            kind: request.auth.kind,
            username: request.auth.username,
            // Editing other fields keeps the password, as long as it is for the same user.
            password:
              request.auth.password ??
              (previous && previous.auth.kind !== 'none' && previous.auth.username === request.auth.username
                ? previous.auth.password
                : ''),
          };
    const parsed = storeConfigSchema.safeParse({
      queryUrl: request.queryUrl,
      updateUrl: request.updateUrl ?? request.queryUrl,
      graphStoreUrl: request.graphStoreUrl ?? request.queryUrl,
      graphIri: request.graphIri ?? `${session.kb.metadata.meta().baseIri}graph`,
      auth,
      batchQuads: request.batchQuads ?? previous?.batchQuads ?? 50_000,
      requestTimeoutMs: request.requestTimeoutMs ?? previous?.requestTimeoutMs ?? 300_000,
      autoSync: request.autoSync ?? previous?.autoSync ?? true,
    });
    if (!parsed.success) {
      throw new PolyhopError(
        'INVALID_REQUEST',
        `store: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
    }
    const config = parsed.data;
    this.#configs.set(id, config);
    this.#clients.delete(id);
    session.kb.storeJournal.track(storeTarget(config));
    return this.status(session.name);
  }

  remove(name: string): boolean {
    const session = this.#engine.kbs.get(name);
    const id = this.#kbId(session);
    this.#clients.delete(id);
    session.kb.storeJournal.untrack();
    return this.#configs.remove(id);
  }

  status(name: string): StoreStatus {
    const session = this.#engine.kbs.get(name);
    const id = this.#kbId(session);
    const config = this.#configs.get(id);
    const state = session.kb.storeJournal.state();
    return {
      kb: session.name,
      config: config ? redactStoreConfig(config) : null,
      sync: config
        ? {
            fullNeeded: state.fullNeeded || state.target !== storeTarget(config),
            publishedAt: state.publishedAt,
            syncedAt: state.syncedAt,
            lastError: state.lastError,
            pendingDocuments: state.pendingDocuments,
            pendingEntities: state.pendingEntities,
          }
        : null,
      jobId: this.#running.get(id) ?? null,
    };
  }

  /**
   * {@link status}, with the statements in the store's graph counted (or why the store could not
   * say), the graph's recorded owner, and the credentials checked: an empty `INSERT DATA {}`
   * signed in on the update endpoint, which changes nothing (a count may run anonymously and
   * succeed with a wrong password).
   */
  async probe(name: string): Promise<StoreStatus> {
    const status = this.status(name);
    if (!status.config) return status;
    const session = this.#engine.kbs.get(name);
    const client = this.client(session);
    const request = { timeoutMs: Math.min(30_000, status.config.requestTimeoutMs) };
    let probed: StoreStatus = status;
    try {
      probed = { ...probed, storeQuads: await client.countGraph(request) };
      const owner = await graphOwner(client, request);
      if (owner) probed = { ...probed, graphOwner: { ...owner, thisKb: owner.id === this.#kbId(session) } };
    } catch (error) {
      probed = { ...probed, probeError: toErrorData(error).message };
    }
    try {
      await client.update('INSERT DATA { }', { ...request, credentials: 'always' });
      return { ...probed, updateProbe: { ok: true } };
    } catch (error) {
      return { ...probed, updateProbe: { ok: false, error: toErrorData(error).message } };
    }
  }

  /** The KB's store client; NOT_FOUND (saying how to set one) when none is configured. */
  client(session: KbSession): SparqlStoreClient {
    const id = this.#kbId(session);
    const config = this.#configs.get(id);
    if (!config) {
      throw new PolyhopError(
        'NOT_FOUND',
        `"${session.name}" has no external SPARQL store; configure one with \`polyhop store set --kb "${session.name}" --query-url …\` or on the SPARQL screen`,
        {
          details: { kb: session.name },
        },
      );
    }
    const cached = this.#clients.get(id);
    if (cached && JSON.stringify(cached.config) === JSON.stringify(config)) return cached.client;
    const client = new SparqlStoreClient(config);
    this.#clients.set(id, { config, client });
    return client;
  }

  configured(name: string): boolean {
    return this.#configs.get(this.#kbId(this.#engine.kbs.get(name))) !== null;
  }

  /**
   * Starts a publish (`full`) or sync job for the KB, or returns the one running. A full publish
   * asked for while a sync runs is noted in the journal and done by the next sync.
   */
  start(name: string, full: boolean, takeOver = false): string {
    const session = this.#engine.kbs.get(name);
    const client = this.client(session);
    const id = this.#kbId(session);
    if (full) session.kb.storeJournal.requestFull();
    if (takeOver) this.#takeOver.add(id);
    const running = this.#running.get(id);
    if (running) {
      this.#again.add(id);
      return running;
    }
    const config = this.#configs.get(id) as StoreConfig;
    const jobId = this.#engine.jobs.start('store', session.name, async ({ signal, progress }) => {
      client.onWaiting = (waitedMs, timeoutMs) =>
        progress({
          stage: 'waiting',
          done: Math.round(waitedMs / 1000),
          total: Math.round(timeoutMs / 1000),
          message:
            `waiting for the store's answer: ${Math.round(waitedMs / 1000)} s ` +
            `of the ${Math.round(timeoutMs / 1000)} s limit (\`polyhop store set --timeout\`)`,
        });
      try {
        return await syncStore(knowledgeBaseRdfSource(session.kb), client, session.kb.storeJournal, {
          target: storeTarget(config),
          owner: { id, name: session.name },
          takeOver: this.#takeOver.delete(id),
          batchQuads: config.batchQuads,
          signal,
          onProgress: (p) =>
            progress({
              stage: p.stage,
              done: p.done,
              total: p.total,
              message: `${p.quads.toLocaleString('en')} quads sent`,
            }),
        });
      } finally {
        client.onWaiting = null;
        this.#running.delete(id);
        if (this.#again.delete(id) && !signal.aborted) setImmediate(() => this.#startQuietly(session.name));
      }
    });
    this.#running.set(id, jobId);
    return jobId;
  }

  /** The KB's records changed: sync if a store with auto-sync is configured (else nothing is sent anywhere). */
  changed(name: string): void {
    try {
      const session = this.#engine.kbs.get(name);
      const config = this.#configs.get(this.#kbId(session));
      if (config?.autoSync) this.#startQuietly(session.name);
    } catch {
      // The KB went meanwhile: nothing to follow.
    }
  }

  /** Before a KB is deleted: its store configuration (and password) goes with it. */
  forget(name: string): void {
    const id = this.#kbId(this.#engine.kbs.get(name));
    this.#clients.delete(id);
    this.#configs.remove(id);
  }

  #restored(name: string): void {
    try {
      const session = this.#engine.kbs.get(name);
      const config = this.#configs.get(this.#kbId(session));
      const journal = session.kb.storeJournal;
      if (!config) return journal.untrack();
      journal.track(storeTarget(config));
      journal.requestFull();
    } catch (error) {
      console.error(`[polyhop] store state of restored "${name}" could not be reset: ${toErrorData(error).message}`);
    }
  }

  #startQuietly(name: string): void {
    try {
      this.start(name, false);
    } catch (error) {
      console.error(`[polyhop] store sync for "${name}" could not start: ${toErrorData(error).message}`);
    }
  }

  #kbId(session: KbSession): string {
    return this.#engine.kbs.registry.get(session.name).id;
  }
}

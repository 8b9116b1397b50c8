import type { KnowledgeBase } from '../kb/KnowledgeBase.js';
import { KbRegistry } from '../kb/KbRegistry.js';
import { RdfView } from '../kb/rdf/RdfView.js';
import { knowledgeBaseRdfSource } from '../kb/rdf/knowledgeBaseRdfSource.js';

export interface KbSession {
  name: string;
  kb: KnowledgeBase;
  /** The derived RDF view; it loads in the background on first use, so opening stays fast. */
  rdf: RdfView;
}

/** Open knowledge bases of the data directory, each with its RDF view. */
export class KbSessions {
  readonly registry: KbRegistry;
  readonly #sessions = new Map<string, KbSession>();

  /** Called with each session as its KB is opened (the engine starts its upgrade job there). */
  readonly #onDidOpen: (session: KbSession) => void;

  constructor(dataDir: string, onDidOpen: (session: KbSession) => void = () => undefined) {
    this.registry = new KbRegistry({ dataDir });
    this.#onDidOpen = onDidOpen;
  }

  /** The open KB called `name` (NOT_FOUND when none). */
  get(name: string): KbSession {
    const kb = this.registry.open(name);
    const id = this.registry.get(name).id;
    const existing = this.#sessions.get(id);
    if (existing && existing.kb === kb) {
      existing.name = kb.metadata.meta().name;
      return existing;
    }
    void existing?.rdf.dispose();
    const session = {
      name: kb.metadata.meta().name,
      kb,
      rdf: RdfView.open(knowledgeBaseRdfSource(kb), { autoLoad: false }),
    };
    this.#sessions.set(id, session);
    this.#onDidOpen(session);
    return session;
  }

  create(options: { name: string; description?: string; baseIri?: string }): KbSession {
    this.registry.create(options);
    return this.get(options.name);
  }

  /** Restores a backup file as `name` (see KbRegistry.restore); an open session of that name is closed first. */
  async restore(file: string, name: string, replace: boolean): Promise<void> {
    const existing = this.registry.list().find((k) => k.name.toLowerCase() === name.toLowerCase());
    const closing = existing && replace ? this.#close(existing.id) : undefined;
    try {
      this.registry.restore(file, name, { replace });
    } finally {
      await closing;
    }
  }

  async delete(name: string): Promise<void> {
    const closing = this.#close(this.registry.get(name).id);
    this.registry.delete(name);
    await closing;
  }

  /**
   * Ends a session before its KB is closed. Its view is marked disposed at once (a load in flight
   * stops at its next step), and nothing awaits between this and the caller's registry change, so
   * no call in between can reopen the session on a KB that is about to go (its view's worker
   * would be left running, and the session kept for ever).
   */
  #close(id: string): Promise<void> {
    const session = this.#sessions.get(id);
    this.#sessions.delete(id);
    return session ? session.rdf.dispose() : Promise.resolve();
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((s) => s.rdf.dispose()));
    this.#sessions.clear();
    this.registry.close();
  }
}

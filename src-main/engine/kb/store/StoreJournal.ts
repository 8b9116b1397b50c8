import type { RepositoryContext } from '../RepositoryContext.js';
import type { StoreSyncView } from './StoreStatus.js';

export type JournalKind = 'document' | 'entity';

export interface StoreSyncState extends StoreSyncView {
  /** A store is configured: changes are being noted. */
  tracking: boolean;
  /** Where the published copy is (StoreConfig storeTarget); null before the first publish. */
  target: string | null;
}

/**
 * The KB's side of an external store's sync (migration 0005): the change journal the triggers
 * fill, and the sync state. Rows leave the journal only through {@link acknowledge} or
 * {@link markPublished}, after the store confirmed; a `seq` watermark taken at the start keeps
 * changes made during a sync for the next one.
 */
export class StoreJournal {
  readonly #context: RepositoryContext;

  constructor(context: RepositoryContext) {
    this.#context = context;
  }

  state(): StoreSyncState {
    const row = this.#stmt(
      'SELECT tracking, target, full_needed, published_at, synced_at, last_error FROM store_sync WHERE id = 1',
    ).get() as
      | {
          tracking: number;
          target: string | null;
          full_needed: number;
          published_at: string | null;
          synced_at: string | null;
          last_error: string | null;
        }
      | undefined;
    const fullNeeded = row ? row.full_needed === 1 : true;
    const count = (kind: JournalKind): number =>
      fullNeeded
        ? 0
        : (this.#stmt('SELECT COUNT(DISTINCT record_id) FROM store_journal WHERE kind = ?')
            .pluck()
            .get(kind) as number);
    return {
      tracking: row?.tracking === 1,
      target: row?.target ?? null,
      fullNeeded,
      publishedAt: row?.published_at ?? null,
      syncedAt: row?.synced_at ?? null,
      lastError: row?.last_error ?? null,
      pendingDocuments: count('document'),
      pendingEntities: count('entity'),
    };
  }

  /** Starts noting changes for the store at `target`; another target than the published one needs a full publish. */
  track(target: string): void {
    this.#context.transaction(() => {
      this.#stmt(
        'INSERT INTO store_sync (id, tracking, full_needed) VALUES (1, 1, 1) ON CONFLICT (id) DO UPDATE SET tracking = 1',
      ).run();
      this.#stmt('UPDATE store_sync SET full_needed = 1 WHERE id = 1 AND target IS NOT ?').run(target);
    });
  }

  /** Stops noting changes and forgets the sync state (the store itself is left as it is). */
  untrack(): void {
    this.#context.transaction(() => {
      this.#stmt('DELETE FROM store_sync').run();
      this.#stmt('DELETE FROM store_journal').run();
    });
  }

  /** Asks the next sync to publish in full. */
  requestFull(): void {
    this.#stmt('UPDATE store_sync SET full_needed = 1 WHERE id = 1').run();
  }

  /** The newest journal row: what a sync starting now covers. */
  watermark(): number {
    return (this.#stmt('SELECT COALESCE(MAX(seq), 0) FROM store_journal').pluck().get() as number) ?? 0;
  }

  /** Distinct record ids of `kind` noted up to `upTo`, ascending. */
  pending(kind: JournalKind, upTo: number): number[] {
    return this.#stmt('SELECT DISTINCT record_id FROM store_journal WHERE kind = ? AND seq <= ? ORDER BY record_id')
      .pluck()
      .all(kind, upTo) as number[];
  }

  /** Notes records a sync must still send (entities a changed document linked to), as the triggers would. */
  note(kind: JournalKind, ids: readonly number[]): void {
    const insert = this.#stmt('INSERT INTO store_journal (kind, record_id) VALUES (?, ?)');
    this.#context.transaction(() => {
      for (const id of ids) insert.run(kind, id);
    });
  }

  /** The store has these records as of `upTo`: their journal rows up to there go. */
  acknowledge(kind: JournalKind, ids: readonly number[], upTo: number): void {
    const remove = this.#stmt('DELETE FROM store_journal WHERE kind = ? AND record_id = ? AND seq <= ?');
    this.#context.transaction(() => {
      for (const id of ids) remove.run(kind, id, upTo);
    });
  }

  /** A full publish that began at `upTo` completed into `target`. */
  markPublished(target: string, upTo: number): void {
    const now = new Date().toISOString();
    this.#context.transaction(() => {
      this.#stmt(
        'UPDATE store_sync SET full_needed = 0, target = ?, published_at = ?, synced_at = ?, last_error = NULL WHERE id = 1',
      ).run(target, now, now);
      this.#stmt('DELETE FROM store_journal WHERE seq <= ?').run(upTo);
    });
  }

  markSynced(): void {
    this.#stmt('UPDATE store_sync SET synced_at = ?, last_error = NULL WHERE id = 1').run(new Date().toISOString());
  }

  setError(message: string): void {
    this.#stmt('UPDATE store_sync SET last_error = ? WHERE id = 1').run(message.slice(0, 2000));
  }

  #stmt(sql: string) {
    return this.#context.statements.get(sql);
  }
}

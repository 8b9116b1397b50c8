import type { RepositoryContext } from './RepositoryContext.js';
import { paged } from './utils/rows.js';

/** Why an answer no longer rests on what it cited. */
export type StaleReason = 'reindexed' | 'removed';

/** An answer whose cited document was re-indexed or removed after it was given. */
export interface AnswerStaleness {
  at: string;
  reason: StaleReason;
  documentId: number;
  documentTitle: string;
}

/** A document an answer cites, with the content it had then. */
export interface AnswerSource {
  documentId: number;
  documentHash: string;
  documentTitle: string;
}

/** One answer's named graph as stored, with its staleness (kept apart: the graph is written once). */
export interface AnswerGraphRecord {
  historyId: number;
  graphIri: string;
  nquads: string;
  /** Null while every cited document is as it was. */
  stale: AnswerStaleness | null;
}

const STALE_COLUMNS = `h.stale_at AS staleAt, h.stale_reason AS staleReason,
  h.stale_document_id AS staleDocumentId, h.stale_document_title AS staleDocumentTitle`;

/** The stale_* columns of qa_history as read by {@link STALE_COLUMNS}. */
export interface StaleColumns {
  staleAt: string | null;
  staleReason: StaleReason | null;
  staleDocumentId: number | null;
  staleDocumentTitle: string | null;
}

/**
 * Answers as data (qa_answer_graphs, qa_answer_sources, the stale_* columns of qa_history): each
 * answer's PROV-O graph as N-Quads, the documents it cites, and whether one of them has changed
 * since. Deleting a cited document marks the answer stale in SQL (migration 0014's trigger).
 */
export class AnswerGraphRepository {
  static readonly STALE_COLUMNS = STALE_COLUMNS;
  readonly #context: RepositoryContext;

  constructor(context: RepositoryContext) {
    this.#context = context;
  }

  /** Stores (replaces) the graph of a history entry and the documents it cites. */
  record(historyId: number, graph: { graphIri: string; nquads: string; sources: readonly AnswerSource[] }): void {
    this.#context.transaction(() => {
      this.#context.statements
        .get('INSERT OR REPLACE INTO qa_answer_graphs (history_id, graph_iri, nquads) VALUES (?, ?, ?)')
        .run(historyId, graph.graphIri, graph.nquads);
      this.#context.statements.get('DELETE FROM qa_answer_sources WHERE history_id = ?').run(historyId);
      const insert = this.#context.statements.get(
        'INSERT OR IGNORE INTO qa_answer_sources (document_id, history_id, document_hash, document_title) VALUES (?, ?, ?, ?)',
      );
      for (const s of graph.sources) insert.run(s.documentId, historyId, s.documentHash, s.documentTitle);
    });
  }

  /** History ids of the answers citing any of these documents, ascending. */
  citing(documentIds: readonly number[]): number[] {
    if (documentIds.length === 0) return [];
    return this.#context.statements
      .get(
        `SELECT DISTINCT history_id FROM qa_answer_sources WHERE document_id IN (SELECT value FROM json_each(?)) ORDER BY history_id`,
      )
      .pluck()
      .all(JSON.stringify(documentIds)) as number[];
  }

  /**
   * Marks the answers citing these documents stale for `reason` (those already stale keep their
   * first reason); returns the history ids it marked.
   */
  markStale(documentIds: readonly number[], reason: StaleReason): number[] {
    return this.#context.transaction(() => {
      const marked: number[] = [];
      const now = new Date().toISOString();
      const mark = this.#context.statements
        .get(
          `UPDATE qa_history SET stale_at = ?, stale_reason = ?, stale_document_id = ?,
             stale_document_title = (SELECT document_title FROM qa_answer_sources WHERE document_id = ? AND history_id = qa_history.id)
           WHERE stale_at IS NULL AND id IN (SELECT history_id FROM qa_answer_sources WHERE document_id = ?) RETURNING id`,
        )
        .pluck();
      for (const id of documentIds) marked.push(...(mark.all(now, reason, id, id, id) as number[]));
      return marked.sort((a, b) => a - b);
    });
  }

  staleness(historyId: number): AnswerStaleness | null {
    const row = this.#context.statements
      .get(`SELECT ${STALE_COLUMNS} FROM qa_history h WHERE h.id = ?`)
      .get(historyId) as StaleColumns | undefined;
    return row ? staleOf(row) : null;
  }

  sources(historyId: number): AnswerSource[] {
    return this.#context.statements
      .get(
        `SELECT document_id AS documentId, document_hash AS documentHash, document_title AS documentTitle
         FROM qa_answer_sources WHERE history_id = ? ORDER BY document_id`,
      )
      .all(historyId) as AnswerSource[];
  }

  /** Every stored answer graph (or those of the given history ids), by history id, a page at a time. */
  *iterateGraphs(historyIds?: readonly number[]): Generator<AnswerGraphRecord> {
    const rows = paged<{ id: number; graphIri: string; nquads: string } & StaleColumns>(
      this.#context.statements,
      `SELECT g.history_id AS id, g.graph_iri AS graphIri, g.nquads, ${STALE_COLUMNS}
       FROM qa_answer_graphs g JOIN qa_history h ON h.id = g.history_id
       WHERE g.history_id > :after AND (:all OR g.history_id IN (SELECT value FROM json_each(:ids)))
       ORDER BY g.history_id LIMIT :limit`,
      { all: historyIds ? 0 : 1, ids: JSON.stringify(historyIds ?? []) },
      200,
    );
    for (const row of rows)
      yield { historyId: row.id, graphIri: row.graphIri, nquads: row.nquads, stale: staleOf(row) };
  }

  countGraphs(): number {
    return this.#context.statements.get('SELECT COUNT(*) FROM qa_answer_graphs').pluck().get() as number;
  }
}

/** The staleness in a row read with {@link AnswerGraphRepository.STALE_COLUMNS}; null while fresh. */
export function staleOf(row: StaleColumns): AnswerStaleness | null {
  if (row.staleAt === null || row.staleReason === null) return null;
  return {
    at: row.staleAt,
    reason: row.staleReason,
    documentId: row.staleDocumentId ?? 0,
    documentTitle: row.staleDocumentTitle ?? '',
  };
}

import type { Database as Db } from 'better-sqlite3';
import { PolyhopError } from '../base/errors.js';
import { ftsDocument, indexTerms, matchAny, queryTerms } from './utils/ftsText.js';
import type { StatementCache } from './utils/StatementCache.js';
import type { RepositoryContext } from './RepositoryContext.js';
import type { ScoredId, TextIndexKind } from './types.js';

/**
 * A BM25 query term found in more than this share of a text index's rows is dropped: its IDF is
 * small, yet FTS5 scores every row holding it (measured ~0.4 µs per matching row, so hundreds of ms
 * at a million rows for one common word). A query of only such terms finds nothing; dense retrieval,
 * which every caller fuses with BM25, ranks those queries better anyway.
 */
const COMMON_TERM_SHARE = 0.1;
/**
 * Most index rows one BM25 query may score (~0.5 µs each, so ~5 ms): rarer terms are kept first and
 * a term that would pass this is dropped with all commoner ones. A share alone is no bound: at 2M
 * triples a relation word in 10% of them is 200k rows.
 */
const BM25_ROW_BUDGET = 10_000;
/** Query terms whose row counts are kept per index state (see #selectiveTerms). */
const TERM_COUNT_CACHE_MAX = 50_000;
/** Below this many rows every term is kept: even a word in all of them costs a few ms at most. */
const COMMON_TERM_MIN_ROWS = 10_000;

const TEXT_OWNERS: Record<TextIndexKind, string> = { chunk: 'chunks', chunk_original: 'chunks', triple: 'triples' };

/** The table whose rows a text index holds; throws on a kind that is none. */
export function textOwner(kind: TextIndexKind): string {
  const owner = TEXT_OWNERS[kind];
  if (!owner) throw new PolyhopError('BAD_INPUT', `Unknown text index "${String(kind)}"`);
  return owner;
}

/** The FTS5 indexes of chunks (as translated and as written) and triples, and BM25 over them. */
export class TextIndexRepository {
  readonly #db: Db;
  readonly #statements: StatementCache;
  readonly #context: RepositoryContext;
  /** fts5vocab tables created on this connection (they live in its temp schema). */
  readonly #vocabTables = new Set<TextIndexKind>();

  constructor(context: RepositoryContext) {
    this.#db = context.db;
    this.#statements = context.statements;
    this.#context = context;
  }

  /** Forgets the connection's temp vocab tables (the connection closed). */
  clear(): void {
    this.#vocabTables.clear();
  }

  /** Indexes (replaces) texts; they are word-segmented first so zh/ja/th work like spaced languages. */
  indexText(kind: TextIndexKind, items: readonly { id: number; text: string }[]): void {
    const owner = textOwner(kind);
    this.#context.touch();
    this.#context.transaction(() => {
      const remove = this.#statements.get(`DELETE FROM fts_${kind} WHERE rowid = ?`);
      const insert = this.#statements.get(`INSERT INTO fts_${kind} (rowid, text) VALUES (?, ?)`);
      for (const { id, text } of items) {
        if (!this.#context.exists(owner, id)) throw this.#context.notFound(kind, id);
        remove.run(id);
        insert.run(id, ftsDocument(text));
      }
    });
  }

  removeText(kind: TextIndexKind, ids: readonly number[]): void {
    textOwner(kind);
    if (ids.length === 0) return;
    this.#context.touch();
    this.#statements
      .get(`DELETE FROM fts_${kind} WHERE rowid IN (SELECT value FROM json_each(?))`)
      .run(JSON.stringify(ids));
  }

  /** Ids of `kind` rows not in the text index yet, by id. */
  missingText(kind: TextIndexKind, limit = 1000): number[] {
    const owner = textOwner(kind);
    return this.#statements
      .get(`SELECT o.id FROM ${owner} o WHERE o.id NOT IN (SELECT rowid FROM fts_${kind}) ORDER BY o.id LIMIT ?`)
      .pluck()
      .all(limit) as number[];
  }

  /**
   * BM25 over any of the query's words (score = -bm25, higher is better). In a large index, words in
   * more than 10% of the rows, and the commonest words past a budget of scored rows, are left out, so
   * a query of only common words finds nothing (see COMMON_TERM_SHARE, BM25_ROW_BUDGET). The query
   * is data: FTS5 syntax in it is inert. `exact` scores every term instead (ground truth for benchmarks).
   */
  bm25(kind: TextIndexKind, query: string, k: number, options: { exact?: boolean } = {}): ScoredId[] {
    textOwner(kind);
    if (k <= 0) return [];
    const terms = queryTerms(query);
    const match = matchAny(options.exact ? terms : this.#selectiveTerms(kind, terms));
    if (match === null) return [];
    const rows = this.#statements
      .get(
        `SELECT rowid AS id, bm25(fts_${kind}) AS rank FROM fts_${kind} WHERE fts_${kind} MATCH ? ORDER BY rank LIMIT ?`,
      )
      .all(match, k) as {
      id: number;
      rank: number;
    }[];
    return rows.map((r) => ({ id: r.id, score: -r.rank }));
  }

  /**
   * The terms of a BM25 query without those common in the index. In a large index the query becomes
   * its index terms (see {@link indexTerms}), rarest first, each in at most COMMON_TERM_SHARE of the
   * rows and together in at most BM25_ROW_BUDGET; absent ones are dropped too (they match nothing),
   * so none may be left.
   */
  #selectiveTerms(kind: TextIndexKind, terms: string[]): string[] {
    if (terms.length === 0) return terms;
    const rows = this.#context.derive(
      `rows:${kind}`,
      () =>
        this.#statements
          .get(`SELECT COUNT(*) FROM ${textOwner(kind)}`)
          .pluck()
          .get() as number,
    );
    if (rows < COMMON_TERM_MIN_ROWS) return terms;
    if (!this.#vocabTables.has(kind)) {
      this.#db.exec(
        `CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_${kind}_vocab USING fts5vocab(main, fts_${kind}, row)`,
      );
      this.#vocabTables.add(kind);
    }
    // Counting a term's rows decodes its whole doclist (milliseconds for a common word at 1M rows),
    // so counts are kept until the index changes: questions repeat their common words.
    const lookup = this.#statements.get(`SELECT doc FROM temp.fts_${kind}_vocab WHERE term = ?`).pluck();
    const known = this.#context.derive(`termRows:${kind}`, () => new Map<string, number>());
    if (known.size > TERM_COUNT_CACHE_MAX) known.clear();
    const rowsOf = (term: string): number => {
      let n = known.get(term);
      if (n === undefined) known.set(term, (n = (lookup.get(term) as number | undefined) ?? 0));
      return n;
    };
    const counted = [...new Set(terms.flatMap(indexTerms))]
      .map((term) => ({ term, documents: rowsOf(term) }))
      .filter((t) => t.documents > 0)
      .sort((a, b) => a.documents - b.documents);
    const kept: string[] = [];
    let scored = 0;
    for (const { term, documents } of counted) {
      scored += documents;
      if (documents > COMMON_TERM_SHARE * rows || scored > BM25_ROW_BUDGET) break;
      kept.push(term);
    }
    return kept;
  }
}

import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { StatementCache } from '../utils/StatementCache.js';
import { entityKey } from '../entityKey.js';
import { SQLITE_BINDING } from '../KbFile.js';

/** A named node's further labels (not its name, and not any node's name). */
export interface NodeAliases {
  key: string;
  name: string;
  aliases: string[];
}

/** Nodes (by id range) per page of {@link NodeTable.aliases}. */
const ALIAS_PAGE = 4096;

/**
 * What one RDF import knows about each node, keyed by its N-Triples form: labels and first type
 * (pass 1), then its unique name (pass 2). It lives in a private temporary SQLite database so the
 * importer's memory does not grow with the number of nodes: a 1 GB graph has millions of them,
 * and every distinct literal is one. SQLite puts the file where it keeps temporary files
 * (SQLITE_TMPDIR, TMPDIR, /var/tmp, ...), holds at most `cacheMiB` of it in memory, and deletes it
 * on close, or when the process dies.
 */
export class NodeTable {
  readonly #db: Db;
  readonly #statements: StatementCache;
  #labelSeq = 0;

  private constructor(db: Db) {
    this.#db = db;
    this.#statements = new StatementCache(db);
  }

  static open(options: { cacheMiB?: number } = {}): NodeTable {
    const db = new Database('', SQLITE_BINDING);
    try {
      // A scratch file: nothing to recover after a crash, so no journal and no syncing.
      db.pragma('journal_mode = OFF');
      db.pragma('synchronous = OFF');
      db.pragma(`cache_size = -${Math.round((options.cacheMiB ?? 16) * 1024)}`);
      db.function('entity_key', { deterministic: true }, (name: unknown) => entityKey(String(name)));
      db.exec(`
        CREATE TABLE label (node TEXT NOT NULL, value TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (node, value)) WITHOUT ROWID;
        CREATE TABLE type (node TEXT PRIMARY KEY, type_node TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE node (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, name TEXT NOT NULL, name_key TEXT NOT NULL UNIQUE);
      `);
      // One transaction for the whole import: its pages stay in the cache until they spill.
      db.exec('BEGIN');
      return new NodeTable(db);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** Records a label; a node's first distinct label is its name, the others aliases. */
  addLabel(node: string, value: string): void {
    this.#stmt('INSERT OR IGNORE INTO label (node, value, seq) VALUES (?, ?, ?)').run(node, value, this.#labelSeq++);
  }

  /** Records `typeNode` as the node's type unless it already has one (the first rdf:type wins). */
  addType(node: string, typeNode: string): void {
    this.#stmt('INSERT OR IGNORE INTO type (node, type_node) VALUES (?, ?)').run(node, typeNode);
  }

  firstLabel(node: string): string | undefined {
    return this.#stmt('SELECT value FROM label WHERE node = ? ORDER BY seq LIMIT 1').pluck().get(node) as
      string | undefined;
  }

  /** The node's first type and that type's first label. */
  typeOf(node: string): { key: string; label: string | undefined } | undefined {
    const row = this.#stmt(
      'SELECT t.type_node AS key, (SELECT value FROM label WHERE node = t.type_node ORDER BY seq LIMIT 1) AS label FROM type t WHERE t.node = ?',
    ).get(node) as { key: string; label: string | null } | undefined;
    return row && { key: row.key, label: row.label ?? undefined };
  }

  /** The node's name, once it has one. */
  nameOf(node: string): string | undefined {
    return this.#stmt('SELECT name FROM node WHERE key = ?').pluck().get(node) as string | undefined;
  }

  /** Whether a node already has a name with this entityKey. */
  isTaken(nameKey: string): boolean {
    return this.#stmt('SELECT 1 FROM node WHERE name_key = ?').get(nameKey) !== undefined;
  }

  /** Names a node; `nameKey` (the name's entityKey) must not be taken (see {@link isTaken}). */
  name(node: string, name: string, nameKey: string): void {
    this.#stmt('INSERT INTO node (key, name, name_key) VALUES (?, ?, ?)').run(node, name, nameKey);
  }

  /**
   * Further labels of every named node, a page of nodes at a time, once all are named: a label
   * that is some node's name stays that node's (names win over aliases), so none is handed out.
   */
  *aliases(): Generator<NodeAliases[]> {
    const last = (this.#stmt('SELECT max(id) FROM node').pluck().get() as number | null) ?? 0;
    const page = this.#stmt(
      `SELECT n.key, n.name, json_group_array(l.value ORDER BY l.seq) AS aliases
       FROM node n JOIN label l ON l.node = n.key
       WHERE n.id > :after AND n.id <= :after + ${ALIAS_PAGE} AND entity_key(l.value) NOT IN ('', n.name_key)
         AND NOT EXISTS (SELECT 1 FROM node m WHERE m.name_key = entity_key(l.value))
       GROUP BY n.id ORDER BY n.id`,
    );
    for (let after = 0; after < last; after += ALIAS_PAGE) {
      const rows = page.all({ after }) as { key: string; name: string; aliases: string }[];
      if (rows.length > 0)
        yield rows.map((r) => ({ key: r.key, name: r.name, aliases: JSON.parse(r.aliases) as string[] }));
    }
  }

  close(): void {
    if (!this.#db.open) return;
    this.#statements.clear();
    this.#db.close();
  }

  #stmt(sql: string): Statement {
    return this.#statements.get(sql);
  }
}

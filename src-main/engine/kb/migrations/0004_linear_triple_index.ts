import type { Database } from 'better-sqlite3';
import { ftsDocument } from '../utils/ftsText.js';
import { verbaliseTriple } from '../verbaliseTriple.js';
import type { Migration } from './Migration.js';

/**
 * Triples are indexed by their linear verbalisation alone (HyP-KGRAG 3.1 and its ablation: it
 * matches hypothetical triples best); the MDER description travels beside it in the evidence but
 * is no longer part of the indexed text. The BM25 text is rewritten here (no model needed); the
 * triple vectors, embedded from the old text, are dropped, so the next Index or Re-embed job
 * rebuilds just them. Until then HyP finds triples by BM25.
 */
export const migration0004: Migration = {
  version: 4,
  name: 'linear_triple_index',
  up(db: Database): void {
    const rows = db
      .prepare(
        `SELECT t.id, s.name AS source, t.relation, o.name AS target FROM triples t
         JOIN entities s ON s.id = t.source_id JOIN entities o ON o.id = t.target_id
         WHERE t.id IN (SELECT rowid FROM fts_triple)`,
      )
      .all() as { id: number; source: string; relation: string; target: string }[];
    const remove = db.prepare('DELETE FROM fts_triple WHERE rowid = ?');
    const insert = db.prepare('INSERT INTO fts_triple (rowid, text) VALUES (?, ?)');
    for (const r of rows) {
      remove.run(r.id);
      insert.run(r.id, ftsDocument(verbaliseTriple(r.source, r.relation, r.target)));
    }
    db.exec(`
      DELETE FROM vcode_triple;
      DELETE FROM vec_triple;
      UPDATE vector_state SET generation = generation + 1 WHERE kind = 'triple';
    `);
  },
};

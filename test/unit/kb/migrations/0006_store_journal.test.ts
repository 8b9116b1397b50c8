import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate, schemaVersion } from '../../../../src-main/engine/kb/migrations/migrate.js';
import { StoreJournal } from '../../../../src-main/engine/kb/store/StoreJournal.js';
import { bareRepositoryContext } from '../../../support/bareRepositoryContext.js';
import { eachMemoryDatabase, insertDocument } from '../../../support/migrationDatabase.js';

describe('migration 0006_store_journal', () => {
  let db: Database.Database;
  eachMemoryDatabase((opened) => (db = opened));

  const addDocument = (path: string): number => insertDocument(db, { path, title: path, status: 'pending' });
  const addEntity = (name: string): number =>
    Number(
      db.prepare(`INSERT INTO entities (name, name_key, type) VALUES (?, ?, 'Person')`).run(name, name.toLowerCase())
        .lastInsertRowid,
    );

  it('upgrades a version-5 database, keeps its rows, and notes nothing while no store is configured', () => {
    migrate(db, ':memory:', 5);
    const before = addDocument('/kept.txt');
    migrate(db, ':memory:', 6);
    expect(schemaVersion(db)).toBe(6);
    expect(db.prepare('SELECT path FROM documents WHERE id = ?').pluck().get(before)).toBe('/kept.txt');
    addDocument('/untracked.txt');
    addEntity('Odysseus');
    expect(db.prepare('SELECT COUNT(*) FROM store_journal').pluck().get()).toBe(0);
    expect(new StoreJournal(bareRepositoryContext(db)).state()).toMatchObject({ tracking: false, fullNeeded: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it('while tracking, notes the documents and entities whose RDF changes, and acknowledges only up to the watermark', () => {
    migrate(db, ':memory:');
    const journal = new StoreJournal(bareRepositoryContext(db));
    journal.track('store-a');
    journal.markPublished('store-a', journal.watermark());
    const doc = addDocument('/a.txt');
    const chunk = Number(
      db
        .prepare(`INSERT INTO chunks (document_id, ord, text, start_offset, end_offset) VALUES (?, 0, 'x', 0, 1)`)
        .run(doc).lastInsertRowid,
    );
    const [a, b, c] = [addEntity('A'), addEntity('B'), addEntity('C')];
    const triple = Number(
      db.prepare(`INSERT INTO triples (source_id, relation, target_id) VALUES (?, 'KNOWS', ?)`).run(a, b)
        .lastInsertRowid,
    );
    db.prepare('INSERT INTO triple_chunks (triple_id, chunk_id) VALUES (?, ?)').run(triple, chunk);
    expect(journal.state()).toMatchObject({ fullNeeded: false, pendingDocuments: 1, pendingEntities: 3 });

    const upTo = journal.watermark();
    journal.acknowledge('document', [doc], upTo);
    journal.acknowledge('entity', [a, b, c], upTo);
    expect(journal.state()).toMatchObject({ pendingDocuments: 0, pendingEntities: 0 });

    // A merge re-points the triple to C: both old and new ends are noted; status changes are not RDF.
    db.prepare('UPDATE triples SET target_id = ? WHERE id = ?').run(c, triple);
    db.prepare(`UPDATE documents SET status = 'indexed' WHERE id = ?`).run(doc);
    expect(journal.pending('entity', journal.watermark())).toEqual([a, b, c]);
    expect(journal.pending('document', journal.watermark())).toEqual([]);
    // Removing the document cascades: its chunk's provenance notes the triple's ends.
    const mark = journal.watermark();
    db.prepare('DELETE FROM documents WHERE id = ?').run(doc);
    expect(journal.pending('document', journal.watermark())).toEqual([doc]);
    // Rows after a watermark survive an acknowledgement up to it.
    journal.acknowledge('entity', [a, b, c], mark);
    expect(journal.pending('entity', journal.watermark())).toEqual([a, c]);

    // An RDF import, or another store, asks for a full publish.
    db.prepare(`INSERT INTO imported_statements (source, nquads) VALUES ('g.ttl', '<a> <b> <c> .')`).run();
    expect(journal.state().fullNeeded).toBe(true);
    journal.markPublished('store-a', journal.watermark());
    journal.track('store-b');
    expect(journal.state().fullNeeded).toBe(true);
    journal.untrack();
    addEntity('D');
    expect(db.prepare('SELECT COUNT(*) FROM store_journal').pluck().get()).toBe(0);
  });
});

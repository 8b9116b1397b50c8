import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PolyhopError } from '../../../src-main/engine/base/errors.js';
import { KnowledgeBase } from '../../../src-main/engine/kb/KnowledgeBase.js';
import { LATEST_SCHEMA_VERSION } from '../../../src-main/engine/kb/migrations/migrate.js';
import { addDoc, chunks, createKb, tempDir } from './kbFixtures.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof PolyhopError ? error.code : `not a PolyhopError: ${String(error)}`;
  }
  return undefined;
}

describe('KnowledgeBase', () => {
  let dir: string;
  let cleanup: () => void;
  let kb: KnowledgeBase;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
    kb = createKb(dir);
  });
  afterEach(() => {
    kb.close();
    cleanup();
  });

  describe('open and meta', () => {
    it('creates with meta, WAL and foreign keys, and reopens', () => {
      expect(kb.metadata.meta()).toMatchObject({
        name: 'Test KB',
        description: '',
        baseIri: 'urn:polyhop:kb:test/',
        schemaVersion: LATEST_SCHEMA_VERSION,
        embedder: null,
      });
      kb.metadata.setMeta({ name: 'Renamed', description: 'about' });
      kb.close();
      const again = KnowledgeBase.open(kb.file);
      expect(again.metadata.meta()).toMatchObject({ name: 'Renamed', description: 'about' });
      expect(KnowledgeBase.readMeta(kb.file).name).toBe('Renamed');
      again.close();
      const raw = new Database(kb.file);
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      raw.close();
    });

    it('refuses a missing file unless asked to create, and bad base IRIs', () => {
      expect(codeOf(() => KnowledgeBase.open(join(dir, 'nope.sqlite')))).toBe('NOT_FOUND');
      expect(
        codeOf(() => KnowledgeBase.open(join(dir, 'x.sqlite'), { create: { name: 'x', baseIri: 'not an iri' } })),
      ).toBe('BAD_INPUT');
    });

    it('refuses a KB written by a newer schema, clearly, and reads its meta anyway', () => {
      kb.close();
      const raw = new Database(kb.file);
      raw.pragma('user_version = 99');
      raw.close();
      expect(() => KnowledgeBase.open(kb.file)).toThrow(
        `newer Polyhop (schema v99; this version reads up to v${LATEST_SCHEMA_VERSION})`,
      );
      expect(codeOf(() => KnowledgeBase.open(kb.file))).toBe('UNSUPPORTED');
      expect(codeOf(() => KnowledgeBase.open(kb.file, { readonly: true }))).toBe('UNSUPPORTED');
      expect(KnowledgeBase.readMeta(kb.file).schemaVersion).toBe(99);
      kb = KnowledgeBase.open(createKb(join(dir, 'other')).file); // keep afterEach's close valid
    });

    it('refuses files that are not Polyhop KBs', () => {
      const junk = join(dir, 'junk.sqlite');
      writeFileSync(junk, 'this is not sqlite at all, just some bytes '.repeat(100));
      expect(codeOf(() => KnowledgeBase.open(junk))).toBe('BAD_INPUT');
      const foreign = join(dir, 'foreign.sqlite');
      const raw = new Database(foreign);
      raw.exec('CREATE TABLE t (x)');
      raw.close();
      expect(codeOf(() => KnowledgeBase.open(foreign))).toBe('BAD_INPUT');
    });

    it('opens read-only without writing', () => {
      const doc = addDoc(kb, '/a.txt', 'alpha');
      const ro = KnowledgeBase.open(kb.file, { readonly: true });
      expect(ro.documents.getDocument(doc.id)?.path).toBe('/a.txt');
      expect(() => ro.metadata.setSetting('x', 1)).toThrow(/readonly/i);
      ro.close();
    });

    it('records the embedder and refuses another with CONFLICT offering re-embedding', () => {
      kb.vectors.assertEmbedder('onnx:e5-small', 384);
      expect(kb.vectors.embedder()).toEqual({ identity: 'onnx:e5-small', dimension: 384 });
      kb.vectors.assertEmbedder('onnx:e5-small', 384);
      let error: unknown;
      try {
        kb.vectors.assertEmbedder('gguf:bge-m3', 1024);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(PolyhopError);
      expect((error as PolyhopError).code).toBe('CONFLICT');
      expect((error as PolyhopError).message).toMatch(/re-embed/);
      const doc = addDoc(kb, '/a.txt', 'alpha');
      kb.vectors.putVectors('chunk', [{ id: doc.chunkIds[0]!, vector: new Float32Array(384).fill(1) }]);
      kb.vectors.setEmbedder('gguf:bge-m3', 1024);
      expect(kb.stats().vectors.chunk).toBe(0);
      expect(kb.vectors.missingVectors('chunk')).toEqual(doc.chunkIds);
    });

    it('keeps settings and checkpoints as JSON; clears checkpoints by prefix', () => {
      kb.metadata.setSetting('qa', { topK: 5 });
      expect(kb.metadata.getSetting('qa')).toEqual({ topK: 5 });
      kb.metadata.setSetting('qa', undefined);
      expect(kb.metadata.getSetting('qa')).toBeUndefined();
      kb.jobState.setCheckpoint('index:1:map', { done: [1, 2] });
      kb.jobState.setCheckpoint('index:1:enrich', 3);
      kb.jobState.setCheckpoint('index:10:map', 'x');
      kb.jobState.setCheckpoint('index%:1', 'like-safe');
      expect(kb.jobState.getCheckpoint('index:1:map')).toEqual({ done: [1, 2] });
      kb.jobState.clearCheckpoints('index:1:');
      expect(kb.jobState.getCheckpoint('index:1:map')).toBeUndefined();
      expect(kb.jobState.getCheckpoint('index:1:enrich')).toBeUndefined();
      expect(kb.jobState.getCheckpoint('index:10:map')).toBe('x');
      kb.jobState.clearCheckpoints('index%');
      expect(kb.jobState.getCheckpoint('index:10:map')).toBe('x');
      expect(kb.jobState.getCheckpoint('index%:1')).toBeUndefined();
    });

    it('caches LLM calls with stats, and keeps QA history searchable', () => {
      const cache = kb.jobState.callCache;
      expect(cache.get('k1')).toBeUndefined();
      cache.put('k1', '{"a":1}', {
        promptName: 'mder/map',
        promptVersion: 'v1',
        promptTokens: 100,
        completionTokens: 20,
      });
      cache.put('k2', '{"b":2}', {
        promptName: 'mder/reduce',
        promptVersion: 'v1',
        promptTokens: 50,
        completionTokens: 5,
      });
      expect(cache.get('k1')).toBe('{"a":1}');
      expect(cache.get('k1')).toBe('{"a":1}');
      expect(kb.jobState.cacheStats()).toEqual({
        entries: 2,
        hits: 2,
        promptTokens: 150,
        completionTokens: 25,
        byPrompt: [
          { promptName: 'mder/map', entries: 1, hits: 2 },
          { promptName: 'mder/reduce', entries: 1, hits: 0 },
        ],
      });
      const first = kb.history.addHistory('Who was the wife of the KING of Ithaca?', 'dr', '{"text":"Penelope"}');
      const second = kb.history.addHistory('Chi era la moglie del re di Itaca?', 'hyp', '{"text":"Penelope"}');
      expect(kb.history.listHistory().map((h) => h.id)).toEqual([second, first]);
      expect(kb.history.listHistory('king of')).toMatchObject([
        { id: first, strategy: 'dr', answerJson: '{"text":"Penelope"}' },
      ]);
      expect(kb.history.listHistory('%')).toEqual([]);
      expect(kb.history.listHistory('', 1)).toHaveLength(1);
    });
  });

  describe('documents and chunks', () => {
    it('adds, finds, updates, refuses duplicates', () => {
      const doc = kb.documents.addDocument({
        path: '/d/a.pdf',
        title: 'A',
        hash: 'h1',
        mime: 'application/pdf',
        size: 10,
      });
      expect(doc).toMatchObject({
        path: '/d/a.pdf',
        status: 'pending',
        language: null,
        chunkCount: 0,
        tripleCount: 0,
        error: null,
      });
      expect(kb.documents.findDocumentByPath('/d/a.pdf')?.id).toBe(doc.id);
      expect(
        codeOf(() => kb.documents.addDocument({ path: '/d/a.pdf', title: 'A', hash: 'h', mime: 'x', size: 1 })),
      ).toBe('ALREADY_EXISTS');
      kb.documents.setDocumentStatus(doc.id, 'error', 'map: chunk 3 timed out');
      expect(kb.documents.getDocument(doc.id)).toMatchObject({ status: 'error', error: 'map: chunk 3 timed out' });
      expect(kb.documents.updateDocument(doc.id, { hash: 'h2', size: 20, language: 'it' })).toMatchObject({
        hash: 'h2',
        size: 20,
        language: 'it',
        title: 'A',
      });
      expect(codeOf(() => kb.documents.setDocumentStatus(999, 'indexed'))).toBe('NOT_FOUND');
      expect(codeOf(() => kb.documents.deleteDocument(999))).toBe('NOT_FOUND');
    });

    it('lists with sort, direction, filter and paging', () => {
      const titles = ['delta', 'Alpha', 'charlie', 'bravo_1', 'bravo%2'];
      titles.forEach((title, i) =>
        kb.documents.addDocument({
          path: `/x/${i}.txt`,
          title,
          hash: `${i}`,
          mime: i % 2 ? 'text/plain' : 'application/pdf',
          size: 100 - i,
        }),
      );
      expect(kb.documents.listDocuments({ sort: 'title' }).rows.map((d) => d.title)).toEqual([
        'Alpha',
        'bravo%2',
        'bravo_1',
        'charlie',
        'delta',
      ]);
      expect(kb.documents.listDocuments({ sort: 'size', descending: true, limit: 2 })).toMatchObject({
        total: 5,
        rows: [{ title: 'delta' }, { title: 'Alpha' }],
      });
      expect(kb.documents.listDocuments({ sort: 'size', offset: 4 }).rows.map((d) => d.title)).toEqual(['delta']);
      expect(kb.documents.listDocuments({ filter: 'BRAVO' }).total).toBe(2);
      expect(kb.documents.listDocuments({ filter: '_' }).rows.map((d) => d.title)).toEqual(['bravo_1']);
      expect(kb.documents.listDocuments({ filter: '%' }).rows.map((d) => d.title)).toEqual(['bravo%2']);
      expect(kb.documents.listDocuments({ filter: '/x/3' }).total).toBe(1);
    });

    it('lists 50,000 documents at any sort and offset from an index, never sorting the table', () => {
      kb.transaction(() => {
        for (let i = 0; i < 50_000; i++)
          kb.documents.addDocument({
            path: `/big/${i}.txt`,
            title: `doc ${(i * 7919) % 50_000}`,
            hash: `${i}`,
            mime: 'text/plain',
            size: i,
          });
      });
      // The statements the page runs, read back from the driver, and their plans: a plan, not a time.
      const prepare = vi.spyOn(Database.prototype, 'prepare');
      const plans = new Database(kb.file, { readonly: true });
      try {
        // Grouped (the Corpus screen's list: parts under their file) the same.
        for (const [sort, grouped] of (['title', 'size', 'addedAt', 'tripleCount'] as const).flatMap(
          (s) =>
            [
              [s, false],
              [s, true],
            ] as const,
        )) {
          prepare.mockClear();
          const page = kb.documents.listDocuments({ sort, descending: true, offset: 40_000, limit: 200, grouped });
          expect(page.total).toBe(50_000);
          expect(page.rows).toHaveLength(200);
          const select = prepare.mock.calls.map(([sql]) => String(sql)).find((sql) => /ORDER BY/.test(sql));
          expect(select, sort).toBeDefined();
          const plan = (
            plans.prepare(`EXPLAIN QUERY PLAN ${select}`).all({ limit: 200, offset: 40_000 }) as { detail: string }[]
          ).map((r) => r.detail);
          expect(plan.join('; '), sort).toMatch(/^SCAN d USING INDEX documents_/);
          expect(plan.join('; '), sort).not.toMatch(/TEMP B-TREE/);
        }
      } finally {
        prepare.mockRestore();
        plans.close();
      }
    });

    it('replaces chunks, keeps order, and gives neighbours', () => {
      const doc = kb.documents.addDocument({ path: '/a', title: 'a', hash: 'h', mime: 't', size: 1 });
      const first = kb.documents.replaceChunks(doc.id, chunks('one', 'two', 'three'));
      expect(first.map((c) => c.text)).toEqual(['one', 'two', 'three']);
      expect(kb.documents.getDocument(doc.id)?.chunkCount).toBe(3);
      const [a, b, c] = first as [(typeof first)[0], (typeof first)[0], (typeof first)[0]];
      expect(kb.documents.neighbours(b.id)).toMatchObject({ previous: { id: a.id }, next: { id: c.id } });
      expect(kb.documents.neighbours(a.id).previous).toBeNull();
      expect(kb.documents.neighbours(c.id).next).toBeNull();
      kb.documents.updateChunk(b.id, { summary: 'S', englishText: 'two (en)' });
      kb.documents.updateChunk(b.id, { summary: null });
      expect(kb.documents.getChunk(b.id)).toMatchObject({
        summary: null,
        englishText: 'two (en)',
        documentId: doc.id,
        startOffset: 4,
        endOffset: 7,
      });
      expect(kb.documents.getChunks([c.id, 12345, a.id]).map((x) => x.text)).toEqual(['three', 'one']);
      const second = kb.documents.replaceChunks(doc.id, chunks('uno'));
      expect(kb.documents.chunksOfDocument(doc.id).map((x) => x.id)).toEqual(second.map((x) => x.id));
      expect(kb.documents.getChunk(a.id)).toBeUndefined();
      expect(kb.documents.getDocument(doc.id)?.chunkCount).toBe(1);
    });
  });

  describe('entities and triples', () => {
    it('upserts on the normalised name key and keeps the first type', () => {
      const a = kb.graph.upsertEntity('  Penelope ', 'person');
      expect(kb.graph.upsertEntity('PENELOPE', 'place')).toBe(a);
      expect(kb.graph.upsertEntity('Ｐenelope', 'x')).toBe(a);
      expect(kb.graph.getEntity(a)).toEqual({
        id: a,
        name: 'Penelope',
        type: 'person',
        summary: null,
        summaryStale: true,
        aliases: [],
      });
      expect(kb.graph.upsertEntity('Penelopé', 'person')).not.toBe(a);
      expect(kb.graph.findEntityByName('penelope')?.id).toBe(a);
      expect(codeOf(() => kb.graph.upsertEntity('  ', 'person'))).toBe('BAD_INPUT');
      expect(kb.graph.countEntities()).toBe(2);
      expect(kb.graph.entityTypes()).toEqual([{ name: 'person', count: 2 }]);
    });

    it('adds triples once, collects provenance, counts per document, and marks entities stale', () => {
      const doc = addDoc(kb, '/a', 'c1', 'c2');
      const [c1, c2] = doc.chunkIds as [number, number];
      const o = kb.graph.upsertEntity('Odysseus', 'person');
      const i = kb.graph.upsertEntity('Ithaca', 'place');
      kb.graph.setEntitySummary(o, 'King.');
      expect(kb.graph.getEntity(o)?.summaryStale).toBe(false);
      const t = kb.graph.addTriple({ sourceId: o, relation: 'KING_OF', targetId: i, chunkId: c1 });
      expect(kb.graph.getEntity(o)?.summaryStale).toBe(true);
      kb.graph.setEntitySummary(o, 'King of Ithaca.');
      expect(kb.graph.addTriple({ sourceId: o, relation: ' KING_OF ', targetId: i, chunkId: c1 })).toBe(t);
      expect(kb.graph.getEntity(o)?.summaryStale).toBe(false);
      expect(kb.graph.addTriple({ sourceId: o, relation: 'KING_OF', targetId: i, chunkId: c2 })).toBe(t);
      expect(kb.graph.getEntity(o)?.summaryStale).toBe(true);
      const imported = kb.graph.addTriple({
        sourceId: i,
        relation: 'part_of',
        targetId: kb.graph.upsertEntity('Greece', 'place'),
        chunkId: null,
      });
      kb.graph.setTripleDescription(t, 'Odysseus rules Ithaca.');
      expect(kb.graph.getTriples([imported, t])).toEqual([
        {
          id: imported,
          sourceId: i,
          sourceName: 'Ithaca',
          relation: 'part_of',
          targetId: expect.any(Number),
          targetName: 'Greece',
          description: null,
          chunkIds: [],
        },
        {
          id: t,
          sourceId: o,
          sourceName: 'Odysseus',
          relation: 'KING_OF',
          targetId: i,
          targetName: 'Ithaca',
          description: 'Odysseus rules Ithaca.',
          chunkIds: [c1, c2],
        },
      ]);
      expect(kb.documents.getDocument(doc.id)?.tripleCount).toBe(1);
      expect(kb.graph.triplesOfEntity(i, 'in').map((x) => x.id)).toEqual([t]);
      expect(kb.graph.triplesOfEntity(i, 'out').map((x) => x.id)).toEqual([imported]);
      expect(kb.graph.triplesOfEntity(i, 'both').map((x) => x.id)).toEqual([t, imported]);
      expect(kb.graph.triplesOfChunks([c2]).map((x) => x.id)).toEqual([t]);
      expect(kb.graph.countTriples()).toBe(2);
      expect(kb.graph.relations()).toEqual([
        { name: 'KING_OF', count: 1 },
        { name: 'part_of', count: 1 },
      ]);
      expect(codeOf(() => kb.graph.addTriple({ sourceId: o, relation: 'r', targetId: 999, chunkId: null }))).toBe(
        'NOT_FOUND',
      );
      expect(codeOf(() => kb.graph.addTriple({ sourceId: o, relation: 'r', targetId: i, chunkId: 999 }))).toBe(
        'NOT_FOUND',
      );
      expect(codeOf(() => kb.graph.addTriple({ sourceId: o, relation: ' ', targetId: i, chunkId: null }))).toBe(
        'BAD_INPUT',
      );
    });

    it('keeps entity types and relations until entities or triples change, here or in another connection', () => {
      const doc = addDoc(kb, '/v', 'c1');
      const o = kb.graph.upsertEntity('Odysseus', 'person');
      const i = kb.graph.upsertEntity('Ithaca', 'place');
      kb.graph.addTriple({ sourceId: o, relation: 'KING_OF', targetId: i, chunkId: doc.chunkIds[0]! });
      expect(kb.graph.entityTypes()).toEqual([
        { name: 'person', count: 1 },
        { name: 'place', count: 1 },
      ]);
      kb.graph.entityTypes().pop(); // callers get copies
      expect(kb.graph.entityTypes()).toHaveLength(2);

      const p = kb.graph.upsertEntity('Penelope', 'person');
      expect(kb.graph.entityTypes()[0]).toEqual({ name: 'person', count: 2 });
      kb.graph.addTriple({ sourceId: p, relation: 'WIFE_OF', targetId: o, chunkId: null });
      kb.graph.addTriple({ sourceId: p, relation: 'QUEEN_OF', targetId: i, chunkId: null });
      expect(kb.graph.relations().map((r) => r.name)).toEqual(['KING_OF', 'QUEEN_OF', 'WIFE_OF']);
      // A rolled-back write leaves nothing in the cache either.
      expect(() =>
        kb.transaction(() => {
          kb.graph.upsertEntity('Argos', 'animal');
          expect(kb.graph.entityTypes().map((t) => t.name)).toContain('animal');
          throw new Error('undo');
        }),
      ).toThrow('undo');
      expect(kb.graph.entityTypes().map((t) => t.name)).not.toContain('animal');
      kb.graph.mergeEntities('Odysseus', [o, kb.graph.upsertEntity('Ulysses', 'hero')]);
      expect(kb.graph.entityTypes().map((t) => t.name)).not.toContain('hero');
      kb.documents.deleteDocument(doc.id);
      expect(kb.graph.relations().map((r) => r.name)).toEqual(['QUEEN_OF', 'WIFE_OF']);

      const other = KnowledgeBase.open(kb.file);
      try {
        other.graph.addTriple({
          sourceId: other.graph.upsertEntity('Troy', 'city'),
          relation: 'NEAR',
          targetId: i,
          chunkId: null,
        });
      } finally {
        other.close();
      }
      expect(kb.graph.entityTypes().map((t) => t.name)).toContain('city');
      expect(kb.graph.relations().map((r) => r.name)).toContain('NEAR');
    });

    it('lists entities by staleness and type', () => {
      const a = kb.graph.upsertEntity('A', 'person');
      const b = kb.graph.upsertEntity('B', 'place');
      kb.graph.upsertEntity('C', 'person');
      kb.graph.setEntitySummary(b, 'done');
      expect(kb.graph.listEntities({ stale: true }).map((e) => e.name)).toEqual(['A', 'C']);
      expect(kb.graph.listEntities({ stale: false }).map((e) => e.id)).toEqual([b]);
      expect(kb.graph.listEntities({ type: 'person', limit: 1 }).map((e) => e.id)).toEqual([a]);
      expect(kb.graph.listEntities({ type: 'person', offset: 1 }).map((e) => e.name)).toEqual(['C']);
      expect(kb.graph.countEntities({ stale: true })).toBe(2);
    });

    it('searches entities by name prefix, alias and summary, in any script, injection-safe', () => {
      const pen = kb.graph.upsertEntity('Penelope', 'person');
      const ody = kb.graph.upsertEntity('Odysseus', 'person');
      const ith = kb.graph.upsertEntity('Ithaca', 'place');
      const bj = kb.graph.upsertEntity('北京大学', 'organisation');
      kb.graph.setEntitySummary(ith, 'An island ruled by Odysseus.');
      kb.graph.mergeEntities('Odysseus', [ody, kb.graph.upsertEntity('Ulysses', 'person')]);
      expect(kb.graph.searchEntities('pen').map((e) => e.id)).toEqual([pen]);
      expect(kb.graph.searchEntities('ulyss').map((e) => e.id)).toEqual([ody]);
      expect(kb.graph.searchEntities('odysseus').map((e) => e.id)).toEqual([ody, ith]);
      expect(kb.graph.searchEntities('odysseus', 'place').map((e) => e.id)).toEqual([ith]);
      expect(kb.graph.searchEntities('大学').map((e) => e.id)).toEqual([bj]);
      expect(kb.graph.searchEntities('name:"pen" OR (*').map((e) => e.id)).toEqual([pen]);
      expect(kb.graph.searchEntities('').map((e) => e.name)).toEqual(['Ithaca', 'Odysseus', 'Penelope', '北京大学']);
    });

    it('searches entity names and aliases only (accents folded), not summaries', () => {
      const pen = kb.graph.upsertEntity('Pénélope', 'person');
      const ody = kb.graph.upsertEntity('Odysseus', 'person');
      const ith = kb.graph.upsertEntity('Ithaca', 'place');
      kb.graph.setEntitySummary(ith, 'An island ruled by Odysseus, husband of Penelope.');
      kb.graph.mergeEntities('Odysseus', [ody, kb.graph.upsertEntity('Ulysses', 'person')]);
      expect(kb.graph.searchEntityNames('Penelope').map((e) => e.id)).toEqual([pen]);
      expect(kb.graph.searchEntityNames('Ulysses').map((e) => e.id)).toEqual([ody]);
      expect(kb.graph.searchEntityNames('Odysseus').map((e) => e.id)).toEqual([ody]);
      expect(kb.graph.searchEntityNames('')).toEqual([]);
      expect(kb.graph.searchEntityNames('name:"pen" OR (*').map((e) => e.id)).toEqual([pen]);
    });
  });

  describe('merging entities', () => {
    it('re-points triples, merges duplicates with provenance, records aliases, drops merged vectors', () => {
      const doc = addDoc(kb, '/a', 'c1', 'c2', 'c3');
      const [c1, c2, c3] = doc.chunkIds as [number, number, number];
      const ulysses = kb.graph.upsertEntity('Ulysses', 'person');
      const odysseus = kb.graph.upsertEntity('odysseus', 'hero');
      const ithaca = kb.graph.upsertEntity('Ithaca', 'place');
      const penelope = kb.graph.upsertEntity('Penelope', 'person');
      const t1 = kb.graph.addTriple({ sourceId: ulysses, relation: 'king_of', targetId: ithaca, chunkId: c1 });
      const t2 = kb.graph.addTriple({ sourceId: odysseus, relation: 'king_of', targetId: ithaca, chunkId: c2 });
      const t3 = kb.graph.addTriple({ sourceId: penelope, relation: 'wife_of', targetId: odysseus, chunkId: c3 });
      const t4 = kb.graph.addTriple({ sourceId: penelope, relation: 'wife_of', targetId: ulysses, chunkId: c1 });
      kb.graph.setTripleDescription(t2, 'He rules it.');
      kb.vectors.setEmbedder('test', 4);
      const v = Float32Array.of(1, 0, 0, 0);
      kb.vectors.putVectors(
        'entity_name',
        [ulysses, odysseus, ithaca, penelope].map((id) => ({ id, vector: v })),
      );
      kb.graph.setEntitySummary(odysseus, 'summary');
      kb.vectors.putVectors('entity_summary', [{ id: odysseus, vector: v }]);
      kb.vectors.putVectors(
        'triple',
        [t1, t2, t3, t4].map((id) => ({ id, vector: v })),
      );
      kb.textIndex.indexText(
        'triple',
        [t1, t2, t3, t4].map((id) => ({ id, text: `triple ${id}` })),
      );
      expect(kb.documents.getDocument(doc.id)?.tripleCount).toBe(4);

      const kept = kb.graph.mergeEntities('Odysseus', [ulysses, odysseus]);
      expect(kept).toBe(odysseus); // the entity already holding the canonical name's key is kept
      expect(kb.graph.getEntity(ulysses)).toBeUndefined();
      expect(kb.graph.getEntity(kept)).toMatchObject({
        name: 'Odysseus',
        type: 'hero',
        summaryStale: true,
        aliases: ['Ulysses'],
      });
      expect(kb.graph.findEntityByName('ULYSSES')?.id).toBe(kept);
      expect(kb.graph.upsertEntity('Ulysses', 'person')).toBe(kept); // no resurrection
      const triples = kb.graph.triplesOfEntity(kept);
      expect(triples.map((t) => [t.sourceName, t.relation, t.targetName, t.chunkIds])).toEqual([
        ['Odysseus', 'king_of', 'Ithaca', [c1, c2]],
        ['Penelope', 'wife_of', 'Odysseus', [c1, c3]],
      ]);
      expect(kb.graph.getTriples([t2])[0]?.description).toBe('He rules it.');
      expect(kb.graph.countTriples()).toBe(2);
      expect(kb.documents.getDocument(doc.id)?.tripleCount).toBe(2);
      // Merged entity's vectors gone; renamed kept entity's name vector gone; summary vector kept with its summary.
      expect(kb.vectors.missingVectors('entity_name')).toEqual([odysseus]);
      expect(kb.stats().vectors).toMatchObject({ entity_name: 2, entity_summary: 1 });
      // Surviving triples whose text changed lose vector and FTS row; folded ones are gone entirely.
      const survivors = triples.map((t) => t.id).sort((a, b) => a - b);
      expect(kb.vectors.missingVectors('triple')).toEqual(survivors);
      expect(kb.textIndex.missingText('triple')).toEqual(survivors);
      expect(kb.stats().vectors.triple).toBe(0);
    });

    it('renames the kept entity, keeping its old name as an alias, and refuses names held outside the merge', () => {
      const a = kb.graph.upsertEntity('K. of Ithaca', 'person');
      const b = kb.graph.upsertEntity('King of Ithaca', 'person');
      const other = kb.graph.upsertEntity('Odysseus', 'person');
      expect(codeOf(() => kb.graph.mergeEntities('odysseus', [a, b]))).toBe('CONFLICT');
      const kept = kb.graph.mergeEntities('Laertiades', [a, b]);
      expect(kept).toBe(a);
      expect(kb.graph.getEntity(a)).toMatchObject({ name: 'Laertiades', aliases: ['K. of Ithaca', 'King of Ithaca'] });
      expect(kb.graph.mergeEntities('Odysseus', [other, a])).toBe(other);
      expect(kb.graph.getEntity(other)?.aliases).toEqual(['K. of Ithaca', 'King of Ithaca', 'Laertiades']);
      expect(kb.graph.mergeEntities('King of Ithaca', [other])).toBe(other);
      expect(kb.graph.getEntity(other)).toMatchObject({
        name: 'King of Ithaca',
        aliases: ['K. of Ithaca', 'Laertiades', 'Odysseus'],
      });
      expect(codeOf(() => kb.graph.mergeEntities('x', [999]))).toBe('NOT_FOUND');
    });
  });

  describe('streaming', () => {
    it('iterates every row in batches while other calls run', () => {
      const d1 = addDoc(kb, '/1', 'a', 'b', 'c');
      const d2 = addDoc(kb, '/2', 'd');
      const names = Array.from({ length: 7 }, (_, i) => kb.graph.upsertEntity(`E${i}`, 't'));
      for (let i = 0; i < 6; i++)
        kb.graph.addTriple({
          sourceId: names[i]!,
          relation: 'next',
          targetId: names[i + 1]!,
          chunkId: i < 5 ? d1.chunkIds[i % 3]! : d2.chunkIds[0]!,
        });
      const seen: string[] = [];
      for (const e of kb.graph.iterateEntities({ batchSize: 2 })) {
        seen.push(e.name);
        kb.jobState.setCheckpoint('iter', e.id); // a write between two items must not be blocked
      }
      expect(seen).toEqual(['E0', 'E1', 'E2', 'E3', 'E4', 'E5', 'E6']);
      expect([...kb.documents.iterateDocuments({ batchSize: 1 })].map((d) => d.path)).toEqual(['/1', '/2']);
      expect([...kb.documents.iterateChunks({ documentId: d1.id, batchSize: 2 })].map((c) => c.text)).toEqual([
        'a',
        'b',
        'c',
      ]);
      expect([...kb.graph.iterateTriples({ batchSize: 4 })]).toHaveLength(6);
      expect([...kb.graph.iterateTriples({ documentId: d2.id })].map((t) => t.sourceName)).toEqual(['E5']);
      expect(kb.stats()).toMatchObject({ documents: 2, chunks: 4, entities: 7, triples: 6, relations: 1 });
      expect(kb.stats().sizeBytes).toBeGreaterThan(0);
    });

    it('rolls a failed transaction back completely', () => {
      const doc = addDoc(kb, '/1', 'a');
      expect(() =>
        kb.transaction(() => {
          kb.graph.upsertEntity('Ghost', 'x');
          kb.documents.deleteDocument(doc.id);
          throw new Error('boom');
        }),
      ).toThrow('boom');
      expect(kb.graph.findEntityByName('Ghost')).toBeUndefined();
      expect(kb.documents.getDocument(doc.id)?.chunkCount).toBe(1);
    });
  });
});

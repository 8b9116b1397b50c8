import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddDocumentsResult, DocumentPage } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { syncChangedPaths } from '../../../src-main/engine/api/documentChanges.js';
import { ingestPending } from '../../../src-main/engine/mder/ingestPending.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';
import { call, tempEngine } from '../../support/tempEngine.js';

const fixture = (name: string) => join(import.meta.dirname, '../../fixtures/producers', name);

/** The fixture without its third message (the HTML one without a Message-ID). */
function withoutThirdMessage(): Buffer {
  const text = readFileSync(fixture('letters.mbox'), 'latin1');
  return Buffer.from(text.slice(0, text.indexOf('\nFrom clara@henley.example ') + 1), 'latin1');
}

describe('a file of several documents through the Api (MBOX messages, EML attachments)', () => {
  let engine: Engine;
  let dispose: () => Promise<void>;
  const embedder = new NgramEmbedder(32);
  const folder = mkdtempSync(join(tmpdir(), 'polyhop-mailparts-'));
  const mbox = join(folder, 'letters.mbox');

  beforeAll(async () => {
    ({ engine, dispose } = await tempEngine({ embedder }));
    await call(engine, 'kb:create', { name: 'mail' });
  });
  afterAll(async () => {
    await dispose();
    rmSync(folder, { recursive: true, force: true });
  });

  const kb = () => engine.kbs.get('mail').kb;
  const add = () => call<AddDocumentsResult>(engine, 'docs:add', { kb: 'mail', paths: [folder] });
  const rows = async () =>
    (await call<DocumentPage>(engine, 'docs:list', { kb: 'mail', limit: 100, sort: 'addedAt' })).rows
      .map((d) => ({ path: d.path.slice(folder.length + 1), status: d.status, chunks: d.chunkCount, id: d.id }))
      .sort((a, b) => a.path.localeCompare(b.path));

  it('each message and readable attachment becomes a document of its own, with chunks, after the file is read', async () => {
    copyFileSync(fixture('letters.mbox'), mbox);
    const from = 'From x@y.example Thu May  2 10:00:00 2024\nFrom: x@y.example';
    let nested = 'Content-Type: text/plain\n\ndeep\n';
    for (let i = 0; i < 1000; i++)
      nested = `Content-Type: multipart/mixed; boundary="n${i}"\n\n--n${i}\n${nested}--n${i}--\n`;
    writeFileSync(join(folder, 'bomb.mbox'), `${from}\nSubject: ok\n\nfine\n\n${from}\nSubject: bomb\n${nested}`);
    expect((await add()).added.map((d) => d.path)).toEqual([join(folder, 'bomb.mbox'), mbox]);
    const result = await ingestPending(kb(), { embedder });
    expect(result.failed).toEqual([
      {
        documentId: expect.any(Number) as number,
        path: `${join(folder, 'bomb.mbox')}#message/2`,
        reason: expect.stringMatching(
          /#message\/2: cannot read the e-mail message \(Max allowed child nodes/,
        ) as string,
      },
    ]);
    const listed = await rows();
    expect(listed.map(({ path, status }) => [path, status])).toEqual([
      ['bomb.mbox', 'indexed'],
      ['bomb.mbox#message/1', 'pending'],
      ['bomb.mbox#message/2', 'error'],
      ['letters.mbox', 'indexed'],
      ['letters.mbox#boathouse-1@marlow.example', 'pending'],
      ['letters.mbox#history-2@marlow.example', 'pending'],
      ['letters.mbox#history-2@marlow.example/attachment/1', 'pending'],
      ['letters.mbox#message/3', 'pending'],
    ]);
    for (const row of listed.filter((r) => r.status === 'pending')) expect(row.chunks).toBeGreaterThan(0);
    const container = kb().documents.findDocumentByPath(mbox)!;
    expect(
      kb()
        .documents.partsOf(container.id)
        .map((p) => p.title),
    ).toEqual(['The boathouse at Marlow', 'Club history', 'club.docx', 'Captains']);
    // Reading again finds nothing new to read: the parts are not files of their own.
    expect((await ingestPending(kb(), { embedder })).ingested).toBe(0);
  });

  it('a changed file replaces its parts as a group; a renamed one moves them; a deleted one removes them', async () => {
    writeFileSync(mbox, withoutThirdMessage());
    const before = (await rows()).filter((r) => r.path.startsWith('letters.mbox'));
    const changed = await add();
    expect(changed).toMatchObject({ unchanged: 1, removed: 0 });
    expect(changed.added.map((d) => d.path)).toEqual([mbox]);
    expect((await rows()).filter((r) => r.path.startsWith('letters.mbox')).map((r) => r.path)).toEqual([
      'letters.mbox',
    ]);
    await ingestPending(kb(), { embedder });
    const after = (await rows()).filter((r) => r.path.startsWith('letters.mbox'));
    expect(after.map((r) => r.path)).toEqual([
      'letters.mbox',
      'letters.mbox#boathouse-1@marlow.example',
      'letters.mbox#history-2@marlow.example',
      'letters.mbox#history-2@marlow.example/attachment/1',
    ]);
    // Replaced, not kept: none of the old documents (or their chunks) is left.
    const oldIds = new Set(before.map((r) => r.id));
    expect(after.filter((r) => oldIds.has(r.id))).toEqual([]);
    expect(kb().documents.chunksOfDocument(before.find((r) => r.path === 'letters.mbox#message/3')!.id)).toEqual([]);

    renameSync(mbox, join(folder, 'archive.mbox'));
    expect(await add()).toMatchObject({ renamed: 1, removed: 0, added: [] });
    const moved = (await rows()).filter((r) => r.path.startsWith('archive.mbox'));
    expect(moved.map((r) => [r.path, r.id])).toEqual([
      ['archive.mbox', after[0]!.id],
      ['archive.mbox#boathouse-1@marlow.example', after[1]!.id],
      ['archive.mbox#history-2@marlow.example', after[2]!.id],
      ['archive.mbox#history-2@marlow.example/attachment/1', after[3]!.id],
    ]);

    unlinkSync(join(folder, 'archive.mbox'));
    expect(await add()).toMatchObject({ removed: 1, added: [] });
    expect((await rows()).map((r) => r.path)).toEqual(['bomb.mbox', 'bomb.mbox#message/1', 'bomb.mbox#message/2']);
  });

  it('reindexing a part reads its whole file again; removing the file removes its parts', async () => {
    const part = kb().documents.findDocumentByPath(`${join(folder, 'bomb.mbox')}#message/1`)!;
    await call(engine, 'docs:reindex', { kb: 'mail', id: part.id });
    expect((await rows()).map((r) => [r.path, r.status])).toEqual([['bomb.mbox', 'pending']]);
    await ingestPending(kb(), { embedder });
    const container = kb().documents.findDocumentByPath(join(folder, 'bomb.mbox'))!;
    expect(kb().documents.partsOf(container.id)).toHaveLength(2);
    await call(engine, 'docs:remove', { kb: 'mail', id: container.id });
    expect(await rows()).toEqual([]);
  });

  it("a watched folder's sync treats the file's documents as a group: a change replaces them, a deletion removes them", async () => {
    copyFileSync(fixture('letters.mbox'), mbox);
    await add();
    await ingestPending(kb(), { embedder });
    expect(kb().documents.partsOf(kb().documents.findDocumentByPath(mbox)!.id)).toHaveLength(4);
    writeFileSync(mbox, withoutThirdMessage());
    const changed = await syncChangedPaths(engine, 'mail', folder, [mbox], []);
    expect(changed.added.map((d) => d.path)).toEqual([mbox]);
    expect(kb().documents.partsOf(kb().documents.findDocumentByPath(mbox)!.id)).toEqual([]);
    await ingestPending(kb(), { embedder });
    expect(kb().documents.partsOf(kb().documents.findDocumentByPath(mbox)!.id)).toHaveLength(3);
    unlinkSync(mbox);
    expect(await syncChangedPaths(engine, 'mail', folder, [mbox], [])).toMatchObject({ removed: 1, added: [] });
    expect((await rows()).filter((r) => r.path.startsWith('letters.mbox'))).toEqual([]);
  });
});

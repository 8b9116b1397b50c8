import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentDetail, DocumentPage, DocumentSource } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { documentFilePath } from '../../../src-main/engine/api/handlers/docSource.js';
import { parseOpenDocumentRequest } from '../../../src-renderer/api/bridge.js';
import { ingestedFolder } from '../../support/ingestedFolder.js';
import { call } from '../../support/tempEngine.js';

/** `docs:source` of the documents a mail file holds (`file#part`): each found in its file, read again. */
describe('docs:source of mail parts', () => {
  let engine: Engine;
  let dispose: () => Promise<void>;
  let mbox: string;

  beforeAll(async () => {
    ({ engine, dispose } = await ingestedFolder('mail', (folder) => {
      mbox = join(folder, 'letters.mbox');
      copyFileSync(join(import.meta.dirname, '../../fixtures/producers/letters.mbox'), mbox);
    }));
  });
  afterAll(() => dispose());

  it("gives each message's and attachment's own text, which its chunks' offsets point into", async () => {
    const { rows } = await call<DocumentPage>(engine, 'docs:list', { kb: 'mail', limit: 100 });
    const parts = rows.filter((r) => r.path.startsWith(`${mbox}#`));
    expect(parts.length).toBe(4); // three messages and a DOCX attachment
    const texts = new Set<string>();
    for (const part of parts) {
      const { text, document } = await call<DocumentSource>(engine, 'docs:source', { kb: 'mail', id: part.id });
      expect(document.path).toBe(part.path);
      texts.add(text);
      const { chunks } = await call<DocumentDetail>(engine, 'docs:get', { kb: 'mail', id: part.id });
      expect(chunks.length).toBeGreaterThan(0);
      for (const chunk of chunks) expect(text.slice(chunk.startOffset, chunk.endOffset)).toBe(chunk.text);
    }
    expect(texts.size).toBe(parts.length); // each part its own text, not the file's or another's
    // A part is no PDF file of its own: its bytes are not handed over.
    const reply = await engine.call('docs:file', { kb: 'mail', id: parts[0]!.id });
    expect(!reply.ok && reply.error.code).toBe('UNSUPPORTED');
  });

  it('opens in the system viewer only the file a document was read from (a part: its mail file), from the KB', async () => {
    const { rows } = await call<DocumentPage>(engine, 'docs:list', { kb: 'mail', limit: 100 });
    for (const row of rows.filter((r) => r.path.startsWith(mbox)))
      expect(await documentFilePath(engine, 'mail', row.id)).toBe(mbox);
    await expect(documentFilePath(engine, 'mail', 999_999)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // What the window's main process accepts from the renderer: a KB name and a positive integer id, nothing else.
    expect(parseOpenDocumentRequest({ kb: 'mail', documentId: 3 })).toEqual({ kb: 'mail', documentId: 3 });
    for (const bad of [
      null,
      'x',
      { kb: 'mail' },
      { kb: '', documentId: 1 },
      { kb: 'mail', documentId: 1.5 },
      { kb: 'mail', documentId: -1 },
      { kb: 'mail', documentId: '1' },
    ])
      expect(parseOpenDocumentRequest(bad)).toBeNull();
  });
});

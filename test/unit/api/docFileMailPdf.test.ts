import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer';
import { getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentDetail, DocumentPage, DocumentPageText } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { pageText, type PdfTextItem } from '../../../src-renderer/src/lib/pdfTextMap.js';
import { writePdf } from '../../support/pdfWriter.js';
import { ingestedFolder } from '../../support/ingestedFolder.js';
import { call } from '../../support/tempEngine.js';

/**
 * `docs:file` of a mail's PDF attachment (`file.eml#attachment/1`): the attachment's own bytes,
 * taken from its mail file read again, so that the renderer draws its cited page as it draws a
 * PDF file's. The message is written by nodemailer's MIME composer (base64 attachment).
 */
describe('docs:file of a PDF attached to an e-mail', () => {
  let engine: Engine;
  let dispose: () => Promise<void>;
  let eml: string;
  const pdf = writePdf({
    pages: [
      'The Marlow regatta of 1931 was rowed on the second of May.',
      'Ada Kestrel steered the winning boat.\nThe Henley crew came second.',
    ],
  });

  beforeAll(async () => {
    const message = await new MailComposer({
      from: 'Ada Kestrel <ada@marlow.example>',
      to: 'Clara Whitlow <clara@henley.example>',
      subject: 'Regatta report',
      date: new Date('2024-05-07T10:00:00Z'),
      text: 'Clara,\n\nThe regatta report is attached.\n\nAda\n',
      attachments: [{ filename: 'regatta.pdf', content: Buffer.from(pdf), contentType: 'application/pdf' }],
    })
      .compile()
      .build();
    ({ engine, dispose } = await ingestedFolder('mail', (folder) => {
      eml = join(folder, 'report.eml');
      writeFileSync(eml, message);
    }));
  });
  afterAll(() => dispose());

  it("hands over the attachment's own bytes, whose pages are the pages its citations open on", async () => {
    const { rows } = await call<DocumentPage>(engine, 'docs:list', { kb: 'mail', limit: 100 });
    const attachment = rows.find((r) => r.path === `${eml}#attachment/1`)!;
    expect(attachment.mime).toBe('application/pdf');
    const file = await call<{ mime: string; size: number; base64: string }>(engine, 'docs:file', {
      kb: 'mail',
      id: attachment.id,
    });
    const bytes = Buffer.from(file.base64, 'base64');
    expect(bytes.equals(Buffer.from(pdf))).toBe(true);
    expect(file.size).toBe(pdf.byteLength);

    // Each chunk's page, as docs:page gives it, is the text PDF.js reads on that page of these bytes.
    const proxy = await getDocumentProxy(new Uint8Array(bytes));
    const { chunks } = await call<DocumentDetail>(engine, 'docs:get', { kb: 'mail', id: attachment.id });
    expect(chunks.length).toBeGreaterThan(0);
    for (const chunk of chunks) {
      const page = await call<DocumentPageText>(engine, 'docs:page', {
        kb: 'mail',
        id: attachment.id,
        startOffset: chunk.startOffset,
        endOffset: chunk.endOffset,
      });
      const items = (await (await proxy.getPage(page.page!)).getTextContent()).items as PdfTextItem[];
      expect(pageText(items).text).toBe(page.text);
    }
    await proxy.destroy();

    // The message itself is no PDF; a changed mail file is refused, not served from before.
    const message = rows.find((r) => r.path === eml)!;
    const refused = await engine.call('docs:file', { kb: 'mail', id: message.id });
    expect(!refused.ok && refused.error.code).toBe('UNSUPPORTED');
    appendFileSync(eml, '\r\n');
    const changed = await engine.call('docs:file', { kb: 'mail', id: attachment.id });
    expect(!changed.ok && changed.error.message).toMatch(/changed since it was scanned/);
  });
});

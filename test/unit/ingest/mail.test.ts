import { describe, expect, it } from 'vitest';
import { loadDocument } from '../../../src-main/engine/ingest/index.js';
import { refusal } from './refusal.js';
import { useTmpDir } from './tmpDir.js';

const { put } = useTmpDir('mail');
const crlf = (lines: string[]) => lines.join('\r\n');

describe('e-mail messages (.eml)', () => {
  it('sender, recipients, date and subject head the text; encoded words, quoted-printable and attachments handled', async () => {
    const eml = crlf([
      'From: =?UTF-8?B?QWRhIEtlc3RyZWzigJk=?= <ada@marlow.example>',
      'To: Bruno Ravenworth <bruno@henley.example>',
      'Date: Thu, 01 May 2024 10:00:00 +0200',
      'Subject: =?UTF-8?Q?R=C3=A9gate_at_Henley?=',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b1"',
      '',
      '--b1',
      'Content-Type: multipart/alternative; boundary="b2"',
      '',
      '--b2',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      'The club moved to Henley in 1930; the r=C3=A9gate starts at ten.',
      '--b2',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<p>HTML copy</p>',
      '--b2--',
      '--b1',
      'Content-Type: application/pdf; name="results.pdf"',
      'Content-Disposition: attachment; filename="results.pdf"',
      'Content-Transfer-Encoding: base64',
      '',
      'JVBERi0xLjQK',
      '--b1--',
      '',
    ]);
    const doc = await loadDocument(put('regatta.eml', eml));
    expect(doc.text).toBe(
      [
        'From: Ada Kestrel’ <ada@marlow.example>',
        'To: Bruno Ravenworth <bruno@henley.example>',
        'Date: 2024-05-01T08:00:00.000Z',
        'Subject: Régate at Henley',
        '',
        'The club moved to Henley in 1930; the régate starts at ten.',
        '',
        'Attachment: results.pdf',
      ].join('\n'),
    );
    expect(doc).toMatchObject({ title: 'Régate at Henley', mime: 'message/rfc822' });
  });

  it("an attached message's attachments are read too, named under it, three attached messages deep", async () => {
    // A message forwarding `inner` as an attachment; `depth` messages, each attaching the next and its own notes.
    const message = (n: number, attached?: string): string =>
      crlf([
        'From: Ada Kestrel <ada@marlow.example>',
        `Subject: Forward ${n}`,
        'MIME-Version: 1.0',
        `Content-Type: multipart/mixed; boundary="m${n}"`,
        '',
        `--m${n}`,
        'Content-Type: text/plain; charset=utf-8',
        '',
        `Message ${n} about the ferry to Henley.`,
        `--m${n}`,
        `Content-Type: text/markdown; name="notes-${n}.md"`,
        `Content-Disposition: attachment; filename="notes-${n}.md"`,
        '',
        `# Notes ${n}`,
        '',
        `The weir at Marlow was repaired in spring, notes number ${n}.`,
        ...(attached
          ? [
              `--m${n}`,
              'Content-Type: message/rfc822',
              `Content-Disposition: attachment; filename="forward-${n + 1}.eml"`,
              '',
              attached,
            ]
          : []),
        `--m${n}--`,
        '',
      ]);
    let eml = message(5);
    for (let n = 4; n >= 1; n--) eml = message(n, eml);
    const doc = await loadDocument(put('forwards.eml', eml));
    const a = 'attachment';
    expect(doc.parts!.map((p) => p.partId)).toEqual([
      `${a}/1`,
      `${a}/2`,
      `${a}/2/${a}/1`,
      `${a}/2/${a}/2`,
      `${a}/2/${a}/2/${a}/1`,
      `${a}/2/${a}/2/${a}/2`,
    ]);
    const text = (id: string) => doc.parts!.find((p) => p.partId === id)!.loaded!.text;
    expect(text(`${a}/2/${a}/1`)).toContain('notes number 2');
    expect(text(`${a}/2/${a}/2/${a}/2`)).toContain('Message 4 about the ferry');
    // The fourth message's own attachments are named in its text, not read.
    expect(text(`${a}/2/${a}/2/${a}/2`)).toMatch(/Attachment: notes-4\.md/);
  });

  it('an HTML-only message keeps its text', async () => {
    const eml = crlf([
      'From: clara@henley.example',
      'Subject: Captains',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<html><body><p>Clara Whitlow was captain from <b>1932</b>.</p></body></html>',
    ]);
    expect((await loadDocument(put('captains.eml', eml))).text).toBe(
      'From: clara@henley.example\nSubject: Captains\n\nClara Whitlow was captain from 1932.',
    );
  });

  it('a .eml that is no message is refused saying so', async () => {
    const e = await refusal(put('notes.eml', 'just some words\nand more'));
    expect(e.details['reason']).toBe('not an e-mail message (no From, Date or Subject)');
  });
});

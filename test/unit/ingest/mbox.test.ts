import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDocument } from '../../../src-main/engine/ingest/index.js';
import type { LoadedPart } from '../../../src-main/engine/ingest/types.js';
import { useTmpDir } from './tmpDir.js';

const { put } = useTmpDir('mbox');
/** Written by CPython's `email` and `mailbox` (generateMail.py); the attachments are LibreOffice's. */
const fixture = (name: string) => join(import.meta.dirname, '../../fixtures/producers', name);
const crlf = (lines: string[]) => lines.join('\r\n');

const ids = (parts: readonly LoadedPart[] | undefined) => (parts ?? []).map((p) => p.partId);
const part = (parts: readonly LoadedPart[] | undefined, id: string) => {
  const found = parts?.find((p) => p.partId === id);
  expect(found, `part ${id}`).toBeDefined();
  return found!;
};

describe('mbox files: one document per message', () => {
  it('reads an mboxo file CPython wrote: messages by Message-ID, "From " lines unescaped, quoted-printable and base64 bodies, a DOCX attachment', async () => {
    const doc = await loadDocument(fixture('letters.mbox'));
    expect(doc).toMatchObject({ mime: 'application/mbox', text: '', title: 'letters' });
    expect(ids(doc.parts)).toEqual([
      'boathouse-1@marlow.example',
      'history-2@marlow.example',
      'history-2@marlow.example/attachment/1',
      'message/3',
    ]);
    const boathouse = part(doc.parts, 'boathouse-1@marlow.example').loaded!;
    expect(boathouse.title).toBe('The boathouse at Marlow');
    expect(boathouse.text).toBe(
      [
        'From: Ada Kestrel <ada@marlow.example>',
        'To: Bruno Ravenworth <bruno@henley.example>',
        'Date: 2024-05-02T07:30:00.000Z',
        'Subject: The boathouse at Marlow',
        '',
        'Bruno,',
        '',
        'The club keeps twelve boats at the boathouse.',
        // mailbox.mbox wrote ">From the boathouse"; the reader takes the escape off.
        'From the boathouse the régate course is a short row upstream.',
        '',
        'Ada',
      ].join('\n'),
    );
    const history = part(doc.parts, 'history-2@marlow.example').loaded!;
    expect(history.text).toContain('Bruno Ravenworth moved it to Henley in 1930.'); // base64 body
    // The attachment that is no document we read is named, not a part.
    expect(history.text).toMatch(/Attachment: club\.docx\nAttachment: scan\.bin$/);
    const docx = part(doc.parts, 'history-2@marlow.example/attachment/1').loaded!;
    expect(docx.mime).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(docx.text).toContain('Ada Kestrel founded the club in 1921.');
    const captains = part(doc.parts, 'message/3').loaded!;
    expect(captains).toMatchObject({ title: 'Captains', language: 'en' });
    expect(captains.text).toContain('Clara Whitlow was captain of the Henley Boat Club from 1932.');
  });

  it('mboxrd escaping: one ">" comes off ">From " and ">>From " lines; an unescaped "From " inside a paragraph does not start a message', async () => {
    const mbox = [
      'From ada@marlow.example Thu May  2 10:00:00 2024',
      'From: ada@marlow.example',
      'Subject: Quoting',
      'Message-ID: <quote@marlow.example>',
      '',
      'The minutes said:',
      '>From the first race on, Marlow led.',
      '>>From a quoted reply.',
      'We row',
      'From 10:00 to 12:00 on Sundays.',
      '',
      'From bruno@henley.example Fri May  3 10:00:00 2024',
      'From: bruno@henley.example',
      'Subject: Second',
      '',
      'The second message.',
      '',
    ].join('\n');
    const doc = await loadDocument(put('quoting.mbox', mbox));
    expect(ids(doc.parts)).toEqual(['quote@marlow.example', 'message/2']);
    expect(part(doc.parts, 'quote@marlow.example').loaded!.text).toBe(
      [
        'From: ada@marlow.example',
        'Subject: Quoting',
        '',
        'The minutes said:',
        'From the first race on, Marlow led.',
        '>From a quoted reply.',
        'We row',
        'From 10:00 to 12:00 on Sundays.',
      ].join('\n'),
    );
    expect(part(doc.parts, 'message/2').loaded!.text).toBe(
      'From: bruno@henley.example\nSubject: Second\n\nThe second message.',
    );
  });

  it('a message bomb is refused on its own: nesting, size, attachment count and a bad attachment each stop one message, the others are read', async () => {
    const message = (id: string, body: string[]) => [
      `From x@y.example Thu May  2 10:00:00 2024`,
      crlf([`From: x@y.example`, `Subject: ${id}`, `Message-ID: <${id}@y.example>`, ...body]),
      '',
    ];
    let nested = 'Content-Type: text/plain\r\n\r\ndeep\r\n';
    for (let i = 0; i < 1000; i++)
      nested = `Content-Type: multipart/mixed; boundary="n${i}"\r\n\r\n--n${i}\r\n${nested}--n${i}--\r\n`;
    const attachment = (name: string, data: Buffer) => [
      '--a',
      `Content-Type: application/octet-stream; name="${name}"`,
      `Content-Disposition: attachment; filename="${name}"`,
      'Content-Transfer-Encoding: base64',
      '',
      data.toString('base64'),
    ];
    const mbox = [
      ...message('good', ['', 'The regatta starts at ten.']),
      ...message('nested', nested.split('\r\n')),
      ...message('huge', ['', 'word '.repeat(30_000)]),
      ...message('many', [
        'Content-Type: multipart/mixed; boundary="a"',
        '',
        '--a',
        'Content-Type: text/plain',
        '',
        'Five notes attached.',
        ...[1, 2, 3, 4, 5].flatMap((n) => attachment(`note${n}.txt`, Buffer.from(`Note ${n}: the crew rowed well.`))),
        '--a--',
      ]),
      ...message('corrupt', [
        'Content-Type: multipart/mixed; boundary="a"',
        '',
        '--a',
        'Content-Type: text/plain',
        '',
        'The report is attached.',
        ...attachment('report.docx', Buffer.from('PK\x03\x04 truncated')),
        ...attachment('crew.txt', Buffer.from('The crew of 1930.')),
        '--a--',
      ]),
    ].join('\n');
    const doc = await loadDocument(put('bomb.mbox', mbox), { mail: { maxMessageBytes: 100_000, maxAttachments: 2 } });
    expect(ids(doc.parts)).toEqual([
      'good@y.example',
      'message/2',
      'message/3',
      'many@y.example',
      'many@y.example/attachment/1',
      'many@y.example/attachment/2',
      'corrupt@y.example',
      'corrupt@y.example/attachment/1',
      'corrupt@y.example/attachment/2',
    ]);
    const path = doc.path;
    expect(part(doc.parts, 'good@y.example').loaded!.text).toContain('The regatta starts at ten.');
    expect(part(doc.parts, 'message/2').error).toMatch(
      new RegExp(`^${path}#message/2: cannot read the e-mail message \\(Max allowed child nodes exceeded`),
    );
    expect(part(doc.parts, 'message/3').error).toMatch(
      /^.*#message\/3: message is 14\d\.\d KiB, above the 97\.7 KiB limit/,
    );
    expect(part(doc.parts, 'many@y.example/attachment/2').loaded!.text).toBe('Note 2: the crew rowed well.');
    expect(doc.warnings).toEqual(['message many@y.example: 3 attachments past the first 2 not read']);
    expect(part(doc.parts, 'corrupt@y.example/attachment/1').error).toMatch(
      /#corrupt@y\.example\/attachment\/1: corrupt zip archive/,
    );
    expect(part(doc.parts, 'corrupt@y.example/attachment/2').loaded!.text).toBe('The crew of 1930.');
  });

  it('past the parts limit the rest of the messages are left out with a note', async () => {
    const mbox = [1, 2, 3, 4]
      .map(
        (n) =>
          `From x@y.example Thu May  2 10:00:00 2024\nFrom: x@y.example\nSubject: Race ${n}\n\nRace ${n} was won by Marlow.\n`,
      )
      .join('\n');
    const doc = await loadDocument(put('races.mbox', mbox), { mail: { maxParts: 3 } });
    expect(ids(doc.parts)).toEqual(['message/1', 'message/2', 'message/3']);
    expect(doc.warnings).toEqual(['messages 4–4 not read (more than 3 parts)']);
  });

  it('a mailbox file without an extension (Thunderbird\'s "Inbox") is read as mbox; a named text file stays text', async () => {
    const mbox = readFileSync(fixture('letters.mbox'));
    const inbox = await loadDocument(put('Inbox', mbox));
    expect(inbox.mime).toBe('application/mbox');
    expect(ids(inbox.parts)).toContain('boathouse-1@marlow.example');
    const text = await loadDocument(put('letters.txt', mbox));
    expect(text.mime).toBe('text/plain');
    expect(text.parts).toBeUndefined();
  });

  it('a file that is no mbox is refused saying so', async () => {
    await expect(loadDocument(put('notes.mbox', 'Dear Ada,\nno mail here.'))).rejects.toThrow(
      /notes\.mbox: not an mbox file \(it does not start with a "From " line\)$/,
    );
  });
});

describe('e-mail attachments as their own documents', () => {
  it('an EML keeps its message as its text and yields its attachments of formats we read (LibreOffice XLSX and ODT)', async () => {
    const doc = await loadDocument(fixture('minutes.eml'));
    expect(doc.title).toBe('Minutes and members');
    expect(doc.text).toMatch(/^From: Bruno Ravenworth <bruno@henley\.example>\n/);
    expect(doc.text).toContain('The members list and the club notes are attached.');
    expect(ids(doc.parts)).toEqual(['attachment/1', 'attachment/2']);
    const sheet = part(doc.parts, 'attachment/1');
    expect(sheet.loaded!.text).toContain('Name: Ada Kestrel; Born: 1890-03-04; Club: Marlow Rowing Club; Boats: 12');
    expect(sheet.size).toBe(readFileSync(fixture('people.xlsx')).length);
    expect(part(doc.parts, 'attachment/2').loaded!.text).toContain('Ada Kestrel founded the club in 1921.');
  });
});

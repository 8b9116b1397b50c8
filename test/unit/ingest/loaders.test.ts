import { describe, expect, it } from 'vitest';
import { loadDocument } from '../../../src-main/engine/ingest/index.js';
import { writePdf } from '../../support/pdfWriter.js';
import { writeDocx } from '../../support/zipWriter.js';
import { useTmpDir } from './tmpDir.js';

const { put } = useTmpDir('loaders');
const EN = 'The quick brown fox jumps over the lazy dog near the river bank every morning.';

describe('loaders', () => {
  it('plain UTF-8 text, with and without BOM, CRLF normalised', async () => {
    const plain = await loadDocument(put('a.txt', `${EN}\r\nSecond line.`));
    expect(plain).toMatchObject({
      text: `${EN}\nSecond line.`,
      mime: 'text/plain',
      encoding: 'utf-8',
      language: 'en',
      title: 'a',
    });
    expect(plain.size).toBe(Buffer.byteLength(`${EN}\r\nSecond line.`));
    expect(plain.sha256).toMatch(/^[0-9a-f]{64}$/);
    const bom = await loadDocument(
      put(
        'bom.txt',
        Buffer.concat([
          Buffer.from([0xef, 0xbb, 0xbf]),
          Buffer.from('Perché è così difficile imparare una lingua straniera da adulti?'),
        ]),
      ),
    );
    expect(bom.text.startsWith('Perché')).toBe(true);
    expect(bom.language).toBe('it');
  });

  it('UTF-16 LE and BE with BOM, and LE/BE without BOM by NUL pattern', async () => {
    const text = 'Grüße aus München, wir sehen uns morgen früh am Bahnhof.';
    const le = Buffer.from(text, 'utf16le');
    const be = Buffer.from(le).swap16();
    for (const [name, bytes, encoding] of [
      ['le-bom.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), le]), 'utf-16le'],
      ['be-bom.txt', Buffer.concat([Buffer.from([0xfe, 0xff]), be]), 'utf-16be'],
      ['le.txt', le, 'utf-16le'],
      ['be.txt', be, 'utf-16be'],
    ] as const) {
      const doc = await loadDocument(put(name, bytes));
      expect(doc.text, name).toBe(text);
      expect(doc.encoding, name).toBe(encoding);
      expect(doc.language).toBe('de');
    }
  });

  it('invalid UTF-8 that reads as windows-1252 text is decoded as windows-1252 (and says so)', async () => {
    const doc = await loadDocument(
      put('latin.txt', Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x20, 0x93, 0x6f, 0x6b, 0x94])),
    );
    expect(doc.text).toBe('Café “ok”');
    expect(doc.encoding).toBe('windows-1252');
  });

  it('Markdown: markup stripped, content (code too) kept, first heading is the title', async () => {
    const md = [
      '---',
      'tags: [x]',
      '---',
      '# Ithaca *notes*',
      '',
      'The **king** of [Ithaca](https://x.org/i) was _Odysseus_.',
      '',
      '- item `one`',
      '1. item two',
      '> quoted line',
      '',
      '```js',
      'const a = 1;',
      '```',
      '',
      '| a | b |',
      '|---|---|',
      '| 1 | 2 |',
      '![a map](m.png)',
      '[ref]: https://x.org',
    ].join('\n');
    const doc = await loadDocument(put('n.md', md));
    expect(doc.title).toBe('Ithaca notes');
    expect(doc.mime).toBe('text/markdown');
    expect(doc.text).toBe(
      [
        'Ithaca notes',
        '',
        'The king of Ithaca was Odysseus.',
        '',
        'item one',
        'item two',
        'quoted line',
        '',
        'const a = 1;',
        '',
        'a\tb',
        '1\t2',
        'a map',
      ].join('\n'),
    );
  });

  it('HTML: main article via Readability, navigation and footer dropped, lang and title kept', async () => {
    const para = 'Penelope was the wife of Odysseus, the king of Ithaca, and waited twenty years for his return. ';
    const html = `<!doctype html><html lang="en-GB"><head><title>Penelope</title><style>p{}</style></head><body>
      <nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/shop">Shop now</a></nav>
      <article><h1>Penelope</h1><p>${para.repeat(6)}</p><p>She had a son &amp; heir, Telemachus.</p><ul><li>loyal</li><li>clever</li></ul></article>
      <footer>Copyright 2024 Example Corp</footer><script>alert(1)</script></body></html>`;
    const doc = await loadDocument(put('p.html', html));
    expect(doc.mime).toBe('text/html');
    expect(doc.title).toBe('Penelope');
    expect(doc.language).toBe('en');
    expect(doc.text).toContain('She had a son & heir, Telemachus.');
    expect(doc.text).toContain('loyal\nclever');
    for (const noise of ['Shop now', 'Copyright', 'alert', 'p{}']) expect(doc.text).not.toContain(noise);
  });

  it('HTML without an article falls back to the body text without chrome', async () => {
    const doc = await loadDocument(
      put(
        's.htm',
        '<html><body><nav>Menu Links</nav><div>Short body text only.</div><footer>foot</footer></body></html>',
      ),
    );
    expect(doc.text).toBe('Short body text only.');
  });

  it('PDF: text per page with page start offsets', async () => {
    const doc = await loadDocument(
      put(
        'd.pdf',
        writePdf({ pages: ['Hello page one.', 'Second page here.\nWith two lines.', 'Third page.'], title: 'My PDF' }),
      ),
    );
    expect(doc.mime).toBe('application/pdf');
    expect(doc.title).toBe('My PDF');
    expect(doc.pages?.map((p) => p.page)).toEqual([1, 2, 3]);
    const pageText = (i: number) =>
      doc.text.slice(doc.pages![i]!.startOffset, doc.pages![i + 1]?.startOffset ?? doc.text.length).trim();
    expect(pageText(0)).toBe('Hello page one.');
    expect(pageText(1).replace(/\s+/g, ' ')).toBe('Second page here. With two lines.');
    expect(pageText(2)).toBe('Third page.');
  });

  it('a PDF renamed .txt is sniffed and loaded as PDF', async () => {
    const doc = await loadDocument(put('renamed.txt', writePdf({ pages: ['Sniffed by magic bytes.'] })));
    expect(doc.mime).toBe('application/pdf');
    expect(doc.text).toBe('Sniffed by magic bytes.');
  });

  it('DOCX: raw text of the paragraphs', async () => {
    const doc = await loadDocument(put('w.docx', writeDocx(['Hello docx.', 'Zweiter Absatz über München.'])));
    expect(doc.mime).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(doc.text).toBe('Hello docx.\n\nZweiter Absatz über München.');
    expect(doc.title).toBe('w');
  });
});

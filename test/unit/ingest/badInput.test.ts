import { appendFileSync, unlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadDocument } from '../../../src-main/engine/ingest/index.js';
import { writePdf } from '../../support/pdfWriter.js';
import { writeDocx, writeZip } from '../../support/zipWriter.js';
import { refusal } from './refusal.js';
import { useTmpDir } from './tmpDir.js';

const { put } = useTmpDir('bad');

describe('bad input: each is a BAD_INPUT naming the file and the reason', () => {
  it('empty file', async () => {
    expect((await refusal(put('empty.txt', ''))).details['reason']).toBe('file is empty');
  });

  it('whitespace-only file has no text', async () => {
    expect((await refusal(put('blank.md', ' \n\n\t '))).details['reason']).toBe('no text found in the file');
  });

  it('invalid UTF-8 that is not windows-1252 text either: the first invalid byte is named', async () => {
    // A literal U+FFFD (valid UTF-8) comes first and must not be taken for the invalid byte.
    const bytes = Buffer.concat([
      Buffer.from('Start \ufffd of a line '),
      Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0x8c, 0xbc]),
      Buffer.from(' end.'),
    ]);
    const e = await refusal(put('garbled.txt', bytes));
    expect(e.details['reason']).toBe(
      'is not valid UTF-8 (first invalid byte at offset 20) and does not read as windows-1252 text; save it as UTF-8 and add it again',
    );
    expect(e.details['offset']).toBe(Buffer.byteLength('Start \ufffd of a line '));
  });

  it('binary renamed .txt: NUL bytes', async () => {
    const bytes = Buffer.from('ELF header then some text and then binary \0\0\x01\x02 garbage');
    expect((await refusal(put('prog.txt', bytes))).details['reason']).toMatch(
      /NUL bytes \(binary file\?\) at byte \d+/,
    );
  });

  it('binary renamed .txt: mostly control characters, no NULs', async () => {
    const bytes = Buffer.alloc(4096, 0x41);
    for (let i = 0; i < bytes.length; i += 3) bytes[i] = 0x01 + (i % 7);
    expect((await refusal(put('ctl.txt', bytes))).details['reason']).toMatch(/control characters \(binary file\?\)/);
  });

  it('NUL bytes inside otherwise valid UTF-8 text', async () => {
    const text = 'Normal looking text with one NUL here:\0 and more text afterwards, long enough to pass.';
    expect((await refusal(put('nul.md', text))).details['reason']).toMatch(/NUL bytes/);
  });

  it('encrypted PDF', async () => {
    const e = await refusal(put('locked.pdf', writePdf({ pages: ['secret'], encrypted: true })));
    expect(e.details['reason']).toBe('PDF is encrypted with a password');
  });

  it('corrupt PDFs: garbage after the header, truncated file, no header', async () => {
    expect((await refusal(put('garbage.pdf', '%PDF-1.7\n this is not a pdf at all'))).details['reason']).toMatch(
      /^corrupt PDF/,
    );
    const good = writePdf({ pages: ['Hello there.'] });
    expect((await refusal(put('truncated.pdf', good.subarray(0, 60)))).details['reason']).toMatch(
      /^corrupt PDF|no text layer/,
    );
    expect((await refusal(put('noheader.pdf', 'plain words'))).details['reason']).toBe('corrupt PDF (no %PDF header)');
  });

  it('PDF with many pages of nothing: no text layer', async () => {
    const e = await refusal(put('blank.pdf', writePdf({ pages: Array.from({ length: 200 }, () => '') })));
    expect(e.details['reason']).toBe('PDF has no text layer in 200 page(s) (scanned images?)');
  });

  it('PDF above the page limit is refused before extraction', async () => {
    const e = await refusal(put('long.pdf', writePdf({ pages: ['a', 'b', 'c'] })), { maxPdfPages: 2 });
    expect(e.details['reason']).toBe('PDF has 3 pages (limit 2)');
  });

  it('DOCX zip bomb declared in the central directory is refused before inflating', async () => {
    // 64 MiB of zeros deflates to ~64 KiB: ratio ~1000×.
    const bomb = writeDocx(['hi'], [{ name: 'word/media/bomb.bin', data: Buffer.alloc(64 * 1024 ** 2) }]);
    const e = await refusal(put('bomb.docx', bomb));
    expect(e.details['reason']).toMatch(/possible zip bomb: entry word\/media\/bomb\.bin expands \d+× \(limit 100×\)/);
    expect(e.details['zipBomb']).toBe(true);
    const total = await refusal(
      put('bomb2.docx', writeDocx(['hi'], [{ name: 'big.bin', data: Buffer.alloc(3 * 1024 ** 2) }])),
      { zip: { maxUncompressedBytes: 2 * 1024 ** 2 } },
    );
    expect(total.details['reason']).toMatch(/expands to more than 2\.0 MiB/);
  });

  it('DOCX zip bomb lying about its sizes is caught while inflating with a cap', async () => {
    const liar = writeDocx(
      ['hi'],
      [{ name: 'word/media/liar.bin', data: Buffer.alloc(8 * 1024 ** 2), declaredSize: 1000 }],
    );
    const e = await refusal(put('liar.docx', liar));
    expect(e.details['reason']).toMatch(/entry word\/media\/liar\.bin inflates beyond its declared 1000 B/);
  });

  it('zip that is not a DOCX, and a DOCX that is not a zip', async () => {
    expect((await refusal(put('other.docx', writeZip([{ name: 'a.txt', data: 'x' }])))).details['reason']).toBe(
      'not a DOCX file (no word/document.xml in the archive)',
    );
    expect((await refusal(put('fake.docx', 'just text'))).details['reason']).toBe(
      'not a DOCX file (not a zip archive)',
    );
    expect((await refusal(put('cut.docx', writeDocx(['hello']).subarray(0, 200)))).details['reason']).toMatch(
      /^corrupt zip archive/,
    );
  });

  it('legacy or encrypted Office (OLE) files and unsupported formats', async () => {
    const ole = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(512, 1)]);
    expect((await refusal(put('locked.docx', ole))).details['reason']).toMatch(/Office binary file/);
    expect((await refusal(put('book.pages', 'x'))).details['reason']).toMatch(
      /Apple Pages is not supported; export it/,
    );
    expect((await refusal(put('pic.png', 'x'))).details['reason']).toBe('not a PNG image (unknown header)');
    expect((await refusal(put('pic.bmp', 'x'))).details['reason']).toBe('unsupported file type .bmp');
  });

  it('files above the size limit are refused before reading', async () => {
    const e = await refusal(put('big.txt', 'word '.repeat(1000)), { maxTextFileBytes: 1024 });
    expect(e.details['reason']).toBe('file is 4.9 KiB, above the 1.0 KiB limit for this format');
    const chars = await refusal(put('long.txt', 'word '.repeat(1000)), { maxTextChars: 100 });
    expect(chars.details['reason']).toBe('extracted text exceeds 100 characters');
  });

  it('missing file, directory, changed since scan', async () => {
    expect((await refusal('/nonexistent/polyhop/x.txt')).details['reason']).toBe('file not found (deleted or moved?)');
    const path = put('scanned.txt', 'Some text that was scanned earlier.');
    expect((await refusal(path, { expectedSha256: '0'.repeat(64) })).details['reason']).toBe(
      'file changed since it was scanned',
    );
  });

  it('file deleted while being read', async () => {
    const path = put('vanish.txt', 'x'.repeat(64 * 1024));
    let once = false;
    const e = await refusal(path, {
      readChunkBytes: 4096,
      onReadProgress: () => {
        if (!once) unlinkSync(path);
        once = true;
      },
    });
    expect(e.details['reason']).toBe('file was deleted while being read');
  });

  it('file changed (grew) while being read', async () => {
    const path = put('grow.txt', 'y'.repeat(64 * 1024));
    let once = false;
    const e = await refusal(path, {
      readChunkBytes: 4096,
      onReadProgress: () => {
        if (!once) appendFileSync(path, 'more');
        once = true;
      },
    });
    expect(e.details['reason']).toMatch(/^file changed while being read/);
  });

  it('deeply nested HTML (100,000 levels): no stack overflow, text kept, bounded time', async () => {
    const html = `<html><body><nav>menu</nav>${'<div>'.repeat(100_000)}deep text here for the reader${'</div>'.repeat(100_000)}</body></html>`;
    const started = performance.now();
    const doc = await loadDocument(put('deep.html', html));
    expect(doc.text).toContain('deep text here for the reader');
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

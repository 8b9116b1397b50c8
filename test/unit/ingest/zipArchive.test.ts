import { readFileSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formatBytes } from '../../../src-main/engine/ingest/badInput.js';
import { loadDocument } from '../../../src-main/engine/ingest/index.js';
import { writeDocx } from '../../support/zipWriter.js';
import { refusal } from './refusal.js';
import { useTmpDir } from './tmpDir.js';

const { put } = useTmpDir('ziparchive');

describe('zip archives are refused whole, naming the file and the reason', () => {
  it.each([
    ['../escape.xml', /^archive entry has an unsafe name \(invalid relative path: \.\.\/escape\.xml\)$/],
    ['/etc/escape.xml', /^archive entry has an unsafe name \(absolute path: \/etc\/escape\.xml\)$/],
  ])('an entry named %s', async (name, reason) => {
    const e = await refusal(put('unsafe.docx', writeDocx(['hello'], [{ name, data: 'x' }])));
    expect(e.details['reason']).toMatch(reason);
  });

  it('an encrypted entry, even one the loader never reads', async () => {
    const e = await refusal(
      put('locked.docx', writeDocx(['hello'], [{ name: 'word/media/a.bin', data: 'x', encrypted: true }])),
    );
    expect(e.details['reason']).toBe('archive entry word/media/a.bin is encrypted');
  });

  it('more entries than the limit, before any is listed', async () => {
    const extra = Array.from({ length: 5 }, (_, i) => ({ name: `word/media/${i}.bin`, data: 'x' }));
    const e = await refusal(put('many.docx', writeDocx(['hello'], extra)), { zip: { maxEntries: 4 } });
    expect(e.details).toMatchObject({ reason: 'refused as a possible zip bomb: 8 entries (limit 4)', zipBomb: true });
  });

  it.each([
    ['inflated in one call', 1000, 8 * 1024],
    ['streamed', 2 * 1024 ** 2, 3 * 1024 ** 2],
  ])('an entry that inflates past its declared size, %s', async (_, declaredSize, size) => {
    const data = randomBytes(size); // incompressible: within the ratio limit
    const e = await refusal(put('liar.docx', writeDocx(['hello'], [{ name: 'word/media/a.bin', data, declaredSize }])));
    expect(e.details).toMatchObject({
      reason: `refused as a possible zip bomb: entry word/media/a.bin inflates beyond its declared ${formatBytes(declaredSize)}`,
      zipBomb: true,
    });
  });

  it('an entry the loader never reads that fails its CRC-32', async () => {
    const docx = writeDocx(['hello'], [{ name: 'word/media/a.bin', data: 'unchanged', compress: false }]);
    docx.write('changed!!', docx.indexOf('unchanged'));
    const e = await refusal(put('damaged.docx', docx));
    expect(e.details['reason']).toMatch(/^corrupt zip archive \(entry word\/media\/a\.bin fails its CRC-32 check/);
  });
});

describe('a document zip is hashed, then read in place from the open file', () => {
  it('it loads, with the hash and size of the whole file', async () => {
    const path = put('read.docx', writeDocx(['Read in place.']));
    const seen: number[] = [];
    const doc = await loadDocument(path, { readChunkBytes: 64, onReadProgress: (read, size) => seen.push(read, size) });
    expect(doc.text).toBe('Read in place.');
    expect(seen.slice(-2)).toEqual([doc.size, doc.size]);
  });

  it.each([
    ['deleted', (path: string) => unlinkSync(path), 'file was deleted while being read'],
    [
      'rewritten in place',
      (path: string) => {
        writeFileSync(path, readFileSync(path)); // the same bytes, written again: a new version
        utimesSync(path, new Date(2001, 0, 1), new Date(2001, 0, 1));
      },
      'file changed while being read',
    ],
  ])('one %s once hashed, while its parts are read, is refused', async (_, change, reason) => {
    const path = put('moving.docx', writeDocx(['First text.']));
    const e = await refusal(path, {
      onReadProgress: (read, size) => {
        if (read === size) change(path);
      },
    });
    expect(e.details['reason']).toBe(reason);
  });
});

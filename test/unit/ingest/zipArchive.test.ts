import { describe, expect, it } from 'vitest';
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

  it('an entry the loader never reads that fails its CRC-32', async () => {
    const docx = writeDocx(['hello'], [{ name: 'word/media/a.bin', data: 'unchanged', compress: false }]);
    docx.write('changed!!', docx.indexOf('unchanged'));
    const e = await refusal(put('damaged.docx', docx));
    expect(e.details['reason']).toMatch(/^corrupt zip archive \(entry word\/media\/a\.bin fails its CRC-32 check/);
  });
});

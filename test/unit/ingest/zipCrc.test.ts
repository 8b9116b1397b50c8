import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { zipEntryBytes } from '../../support/zipEntryBytes.js';
import { refusal } from './refusal.js';
import { useTmpDir } from './tmpDir.js';

const { put } = useTmpDir('zipcrc');
const fixture = (name: string) => join(import.meta.dirname, '../../fixtures/producers', name);

/**
 * The LibreOffice file with one bit flipped in the deflated bytes of `entry`, at the first place
 * past the entry's middle where the damaged stream still inflates to the declared size: the
 * corruption only the CRC-32 shows.
 */
async function silentlyCorrupted(name: string, entry: string): Promise<Buffer> {
  const bytes = Buffer.from(readFileSync(fixture(name)));
  const e = await zipEntryBytes(bytes, entry);
  expect(e.method).toBe(8);
  const data = bytes.subarray(e.start, e.end);
  const original = inflateRawSync(data);
  for (let i = Math.floor(data.length / 2); i < data.length; i++) {
    data[i]! ^= 0x01; // `data` is a view into `bytes`
    try {
      const out = inflateRawSync(data, { maxOutputLength: e.uncompressedSize });
      if (out.length === e.uncompressedSize && !out.equals(original)) return bytes;
    } catch {
      // this flip breaks the deflate stream; try the next byte
    }
    data[i]! ^= 0x01;
  }
  throw new Error(`no silent flip found in ${name} ${entry}`);
}

describe('zip entries are checked against their CRC-32', () => {
  it.each([
    ['club.docx', 'word/document.xml'],
    ['people.xlsx', 'xl/worksheets/sheet1.xml'],
    ['club.odt', 'content.xml'],
  ])('%s with a flipped byte in %s is refused naming the file and the entry', async (name, entry) => {
    const path = put(name, await silentlyCorrupted(name, entry));
    const e = await refusal(path);
    expect(e.details['reason']).toMatch(
      new RegExp(
        `^corrupt zip archive \\(entry ${entry} fails its CRC-32 check: recorded 0x[0-9a-f]{8}, read 0x[0-9a-f]{8}\\)$`,
      ),
    );
    expect(e.details['entry']).toBe(entry);
  });
});

import { createHash } from 'node:crypto';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PolyhopError } from '../../../src-main/engine/base/errors.js';
import { scanFolder } from '../../../src-main/engine/ingest/index.js';
import { useTmpDir } from './tmpDir.js';

const { dir } = useTmpDir('scan');
const root = join(dir, 'root');
const write = (rel: string, data: string) => {
  const path = join(root, rel);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, data);
  return path;
};
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

write('a.txt', 'alpha');
write('sub/b.md', '# beta');
write('sub/deeper/c.html', '<p>gamma</p>');
write('.hidden/secret.txt', 'no');
write('.env', 'no');
write('Thumbs.db', 'no');
write('sub/~$lock.docx', 'no');
write('image.bmp', 'no');
write('book.pages', 'no');
write('README', 'no extension');
symlinkSync(root, join(root, 'sub', 'loop')); // a folder link back to the root
symlinkSync(join(root, 'a.txt'), join(root, 'link-to-a.txt'));
mkdirSync(join(dir, 'outside'));
writeFileSync(join(dir, 'outside', 'o.txt'), 'outside');
symlinkSync(join(dir, 'outside'), join(root, 'out'));

describe('scanFolder', () => {
  it('lists documents recursively with size and sha256, reporting what it skips', async () => {
    const scan = await scanFolder(root);
    expect(scan.files.map((f) => [f.path.slice(root.length + 1), f.format, f.size, f.sha256])).toEqual([
      ['a.txt', 'text', 5, sha('alpha')],
      ['sub/b.md', 'markdown', 6, sha('# beta')],
      ['sub/deeper/c.html', 'html', 12, sha('<p>gamma</p>')],
    ]);
    const skipped = Object.fromEntries(scan.skipped.map((s) => [s.path.slice(root.length + 1), s.reason]));
    expect(skipped).toEqual({
      '.hidden': 'hidden',
      '.env': 'hidden',
      'Thumbs.db': 'system',
      'sub/~$lock.docx': 'system',
      'image.bmp': 'unsupported',
      'book.pages': 'unsupported',
      README: 'unsupported',
      'sub/loop': 'symlink',
      'link-to-a.txt': 'symlink',
      out: 'symlink',
    });
    expect(scan.skipped.find((s) => s.reason === 'unsupported' && s.path.endsWith('pages'))?.detail).toMatch(
      /Apple Pages is not supported; export it/,
    );
  });

  it('following symlinks visits each folder and file once: loops and duplicates are reported', async () => {
    const scan = await scanFolder(root, { followSymlinks: true });
    expect(scan.files.map((f) => f.path.slice(root.length + 1))).toEqual([
      'a.txt',
      'out/o.txt',
      'sub/b.md',
      'sub/deeper/c.html',
    ]);
    const skipped = Object.fromEntries(
      scan.skipped
        .filter((s) => s.reason === 'symlink-loop' || s.reason === 'duplicate')
        .map((s) => [s.path.slice(root.length + 1), s.reason]),
    );
    expect(skipped).toEqual({ 'sub/loop': 'symlink-loop', 'link-to-a.txt': 'duplicate' });
  });

  it('a symlink cycle between two links reports a loop instead of hanging', async () => {
    const cyc = join(dir, 'cyc');
    mkdirSync(cyc);
    symlinkSync(join(cyc, 'l2'), join(cyc, 'l1'));
    symlinkSync(join(cyc, 'l1'), join(cyc, 'l2'));
    writeFileSync(join(cyc, 'doc.txt'), 'text');
    const scan = await scanFolder(cyc, { followSymlinks: true });
    expect(scan.files.map((f) => f.path)).toEqual([join(cyc, 'doc.txt')]);
    expect(scan.skipped.map((s) => s.reason).sort()).toEqual(['symlink-loop', 'symlink-loop']);
  });

  it('a root that is not a folder is BAD_INPUT', async () => {
    await expect(scanFolder(join(root, 'a.txt'))).rejects.toMatchObject({
      code: 'BAD_INPUT',
      details: { reason: 'is not a folder' },
    });
    await expect(scanFolder(join(dir, 'missing'))).rejects.toBeInstanceOf(PolyhopError);
  });
});

import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadFile } from '../../../src-main/engine/models/downloadFile.js';
import { allowedRedirect } from '../../../src-main/engine/models/ModelCatalog.js';
import { installNetworkGuard } from '../security/support/networkGuard.js';

const BODY = Buffer.from(Array.from({ length: 10_000 }, (_, i) => i % 251));

/** A mirror on this machine: a file (with Range), redirects inside it, and redirects away from it. */
let server: Server;
let base: string;
const served: string[] = [];
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'polyhop-download-'));
  server = createServer((req, res) => {
    served.push(req.url ?? '');
    const redirects: Record<string, string> = {
      '/hop': '/hop2',
      '/hop2': `${base}/file`,
      '/away': 'http://203.0.113.9/file',
      '/away-https': 'https://huggingface.co.evil.example/file',
      '/loop': '/loop',
    };
    const to = redirects[req.url ?? ''];
    if (to) return res.writeHead(302, { location: to }).end();
    if (req.url !== '/file') return res.writeHead(404).end();
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    res.writeHead(range ? 206 : 200, { 'content-length': String(BODY.length - start) }).end(BODY.subarray(start));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe('downloadFile', () => {
  it('follows redirects that stay within the allowed hosts, hop by hop', async () => {
    const dest = join(dir, 'hop.bin');
    await downloadFile(`${base}/hop`, dest);
    expect(readFileSync(dest).equals(BODY)).toBe(true);
    expect(served.slice(-3)).toEqual(['/hop', '/hop2', '/file']);
  });

  it('refuses a redirect off the allowed hosts before following it', async () => {
    const guard = installNetworkGuard();
    try {
      for (const path of ['/away', '/away-https']) {
        const error = await downloadFile(`${base}${path}`, join(dir, 'away.bin')).catch((e: unknown) => e);
        expect(error, path).toMatchObject({ code: 'NETWORK_BLOCKED', details: { url: `${base}${path}` } });
      }
    } finally {
      guard.uninstall();
    }
    expect(guard.violations).toEqual([]);
    expect(existsSync(join(dir, 'away.bin'))).toBe(false);
  });

  it('stops a redirect loop', async () => {
    await expect(downloadFile(`${base}/loop`, join(dir, 'loop.bin'))).rejects.toMatchObject({
      code: 'MODEL_ERROR',
      message: /more than 5 redirects/,
    });
  });

  it('resumes a partial download with a Range request', async () => {
    const dest = join(dir, 'resumed.bin');
    writeFileSync(`${dest}.part`, BODY.subarray(0, 4000));
    const progress: number[] = [];
    await downloadFile(`${base}/file`, dest, { onProgress: (p) => progress.push(p.totalBytes) });
    expect(readFileSync(dest).equals(BODY)).toBe(true);
    expect(progress.at(-1)).toBe(BODY.length);
  });
});

describe('allowedRedirect', () => {
  it("allows the catalog host's delivery hosts over https only", () => {
    const from = 'https://huggingface.co/o/r/resolve/main/m.gguf';
    expect(allowedRedirect(from, 'https://cdn-lfs.huggingface.co/x?sig=1')).toBe(
      'https://cdn-lfs.huggingface.co/x?sig=1',
    );
    expect(allowedRedirect(from, 'https://cas-bridge.xethub.hf.co/x')).toBe('https://cas-bridge.xethub.hf.co/x');
    expect(allowedRedirect(from, '/o/r/resolve/abc/m.gguf')).toBe('https://huggingface.co/o/r/resolve/abc/m.gguf');
    for (const bad of [
      'http://cdn-lfs.huggingface.co/x',
      'https://hf.co.evil.example/x',
      'https://evilhf.co/x',
      'https://127.0.0.1/x',
      'file:///etc/passwd',
      'https://huggingface.co@203.0.113.5/x',
    ]) {
      expect(() => allowedRedirect(from, bad), bad).toThrow(/Refusing to follow/);
    }
  });

  it('keeps a mirror on this machine on this machine', () => {
    expect(allowedRedirect('http://127.0.0.1:9/a', 'http://localhost:9/b')).toBe('http://localhost:9/b');
    expect(() => allowedRedirect('http://127.0.0.1:9/a', 'https://huggingface.co/b')).toThrow(/Refusing/);
  });
});

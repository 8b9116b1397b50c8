import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { startBrowserServer, type BrowserServer } from '../../../src-main/serve.js';
import { tempEngine } from '../../support/tempEngine.js';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Raw HTTP so tests control Host/Origin and unnormalised paths (fetch would rewrite them). */
function raw(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        headers: { host: `127.0.0.1:${port}`, ...options.headers },
      },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

describe('browser mode server', () => {
  let engine: Engine;
  let dispose: () => Promise<void>;
  let server: BrowserServer;
  let cookie: string;
  let outside: string;

  beforeAll(async () => {
    ({ engine, dispose } = await tempEngine());
    const base = mkdtempSync(join(tmpdir(), 'polyhop-serve-'));
    const renderer = join(base, 'renderer');
    mkdirSync(join(renderer, 'assets'), { recursive: true });
    writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>Polyhop</title>');
    writeFileSync(join(renderer, 'assets', 'app.js'), 'console.log(1)');
    outside = join(base, 'secret.txt');
    writeFileSync(outside, 'top secret');
    symlinkSync(outside, join(renderer, 'link.txt'));
    server = await startBrowserServer({ engine, rendererDir: renderer, maxBodyBytes: 1024 });
    cookie = `polyhop_token=${server.token}`;
  });
  afterAll(async () => {
    await server.close();
    await dispose();
  });

  it('listens on loopback only and signs in through the one-time link', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const bad = await raw(server.port, '/auth?token=wrong');
    expect(bad.status).toBe(401);
    const auth = await raw(server.port, `/auth?token=${server.token}`);
    expect(auth.status).toBe(302);
    expect(String(auth.headers['set-cookie'])).toContain('HttpOnly');
    expect(auth.headers.location).toBe(`/#token=${server.token}`);
  });

  it('requires the token for static files, with a strict CSP', async () => {
    expect((await raw(server.port, '/')).status).toBe(401);
    const page = await raw(server.port, '/', { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('Polyhop');
    expect(String(page.headers['content-security-policy'])).toContain("default-src 'self'");
    expect((await raw(server.port, '/assets/app.js', { headers: { cookie } })).status).toBe(200);
  });

  it('cannot be walked out of the renderer folder', async () => {
    for (const path of [
      '/../secret.txt',
      '/..%2fsecret.txt',
      '/%2e%2e/secret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/link.txt',
      '/%00',
      '/%E0%A4%A',
      '//etc/passwd',
      '/assets/../../secret.txt',
    ]) {
      const res = await raw(server.port, path, { headers: { cookie } });
      expect(res.body, path).not.toContain('top secret');
      expect([400, 404], path).toContain(res.status);
    }
  });

  it('refuses foreign Host and Origin headers (DNS rebinding, cross-site)', async () => {
    const headers = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
    expect(
      (
        await raw(server.port, '/api/kb:list', {
          method: 'POST',
          headers: { ...headers, host: 'evil.example:80' },
          body: '{}',
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await raw(server.port, '/api/kb:list', {
          method: 'POST',
          headers: { ...headers, origin: 'http://evil.example' },
          body: '{}',
        })
      ).status,
    ).toBe(403);
    expect((await raw(server.port, '/', { headers: { cookie, host: `attacker.test:${server.port}` } })).status).toBe(
      403,
    );
  });

  it('serves the Api with a Bearer token and typed errors', async () => {
    const headers = {
      authorization: `Bearer ${server.token}`,
      'content-type': 'application/json',
      origin: server.url.slice(0, -1),
    };
    expect(
      (
        await raw(server.port, '/api/system:getSettings', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
      ).status,
    ).toBe(401);
    const ok = await raw(server.port, '/api/system:getSettings', { method: 'POST', headers, body: '{}' });
    expect(JSON.parse(ok.body)).toMatchObject({ ok: true, value: { theme: expect.any(String) } });
    const notJson = await raw(server.port, '/api/system:getSettings', { method: 'POST', headers, body: '{' });
    expect(JSON.parse(notJson.body).error.code).toBe('INVALID_REQUEST');
    const huge = await raw(server.port, '/api/system:getSettings', { method: 'POST', headers, body: 'x'.repeat(5000) });
    expect(huge.status).toBe(413);
    const unknown = await raw(server.port, '/api/evil%3Amethod', { method: 'POST', headers, body: '{}' });
    expect(JSON.parse(unknown.body).error.code).toBe('INVALID_REQUEST');
  });

  it('streams events over a WebSocket that needs the token', async () => {
    const refused = new WebSocket(`ws://127.0.0.1:${server.port}/events?token=nope`);
    await expect(
      new Promise((resolve, reject) => (refused.on('open', resolve), refused.on('error', reject))),
    ).rejects.toThrow();
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/events?token=${server.token}`);
    await new Promise((resolve) => ws.on('open', resolve));
    const received = new Promise<{ name: string; payload: { jobId: string; status: string } }>((resolve) =>
      ws.on('message', (m) => resolve(JSON.parse(String(m)))),
    );
    const jobId = engine.jobs.start('eval', null, async () => 'done');
    const event = await received;
    expect(event.name).toBe('job:finished');
    expect(event.payload).toMatchObject({ jobId, status: 'done' });
    ws.close();
  });
});

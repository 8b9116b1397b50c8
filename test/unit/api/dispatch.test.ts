import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHODS } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { tempEngine } from '../../support/tempEngine.js';

/** Malformed payloads of every shape: each must get a typed error, never a crash. */
function hostilePayloads(): unknown[] {
  let deep: unknown = {};
  for (let i = 0; i < 10_000; i++) deep = { a: deep };
  return [
    null,
    42,
    'string',
    [],
    { kb: 5 },
    { kb: 'x'.repeat(1_000_000) },
    { kb: '../../etc' },
    { unknownField: true },
    { __proto__: { polluted: true } },
    JSON.parse('{"__proto__": {"polluted": true}, "kb": "a"}'),
    deep,
    { kb: 'a', id: -1 },
    { kb: 'a', id: 1.5 },
    { kb: 'a', question: '' },
    { kb: 'a', query: 'x', limit: 1e12 },
  ];
}

describe('api dispatch', () => {
  let engine: Engine;
  let dispose: () => Promise<void>;
  beforeAll(async () => ({ engine, dispose } = await tempEngine()));
  afterAll(() => dispose());

  it('refuses unknown methods with INVALID_REQUEST', async () => {
    for (const method of ['nope', '', 'constructor', '__proto__', 'toString', 42, null]) {
      const reply = await engine.call(method, {});
      expect(reply).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    }
  });

  it('answers every malformed payload on every channel with a typed error and keeps serving', async () => {
    for (const method of METHODS) {
      for (const payload of hostilePayloads()) {
        const reply = await engine.call(method, payload);
        if (reply.ok) continue; // some methods take {} and ignore nothing: an empty request may be valid
        expect(typeof reply.error.code).toBe('string');
        expect(reply.error.code).not.toBe('INTERNAL');
        expect(reply.error.message.length).toBeLessThan(5000);
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const settings = await engine.call('system:getSettings', {});
    expect(settings.ok).toBe(true);
  });

  it('validates settings and keeps them', async () => {
    const bad = await engine.call('system:setSettings', { settings: { theme: 'neon' } });
    expect(bad).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    const good = await engine.call('system:setSettings', { settings: { theme: 'dark', concurrency: 2 } });
    expect(good).toMatchObject({ ok: true, value: { theme: 'dark', concurrency: 2 } });
  });
});

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Reply, SparqlResult } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { writeGguf } from '../../fixtures/ggufWriter.js';
import { tinyLlamaPath } from '../../fixtures/tinyLlama.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';
import { call, runJobToEnd, tempEngine } from '../../support/tempEngine.js';

/** Hostile SPARQL and hostile model files, through the Api as a front door sends them. */

let engine: Engine;
let dispose: () => Promise<void>;
const dir = mkdtempSync(join(tmpdir(), 'polyhop-hostile-'));

beforeAll(async () => {
  ({ engine, dispose } = await tempEngine({ embedder: new NgramEmbedder(64) }));
});
afterAll(async () => {
  await dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('SPARQL through the Api', () => {
  const people = 120;
  beforeAll(async () => {
    const lines = ['@prefix ex: <http://example.org/> .'];
    for (let i = 0; i < people; i++)
      lines.push(`ex:p${i} ex:name "Person ${i}" ; ex:knows ex:p${(i * 7 + 1) % people} .`);
    const file = join(dir, 'people.ttl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    await call(engine, 'kb:create', { name: 'sparql' });
    const job = await runJobToEnd(engine, 'rdf:import', { kb: 'sparql', inputPath: file });
    expect(job.error).toBeNull();
  });

  /** Statements the import put in the database (the view is rebuilt from these). */
  let imported = 0;
  const count = async (): Promise<number> => {
    const result = await call<SparqlResult>(engine, 'sparql:query', {
      kb: 'sparql',
      query: 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }',
      timeoutMs: 60_000,
    });
    return Number(result.rows[0]?.n);
  };

  it('refuses every kind of update unless allowUpdate is set', async () => {
    const before = await count();
    expect(before).toBeGreaterThanOrEqual(people * 2);
    imported = before;
    const updates = [
      'INSERT DATA { <urn:a> <urn:b> <urn:c> }',
      'DELETE WHERE { ?s ?p ?o }',
      'CLEAR ALL',
      'DROP ALL',
      'PREFIX ex: <http://example.org/>\n# a comment first\nDELETE { ?s ex:name ?n } WHERE { ?s ex:name ?n }',
      'LOAD <http://203.0.113.1/data.ttl>',
      'CREATE GRAPH <urn:g>',
      'insert data { <urn:a> <urn:b> <urn:c> }',
    ];
    for (const query of updates) {
      const reply = await engine.call('sparql:query', { kb: 'sparql', query });
      expect(reply, query).toMatchObject({
        ok: false,
        error: { code: 'BAD_INPUT', message: expect.stringMatching(/allowUpdate/) },
      });
    }
    expect(await count()).toBe(before);
    // Unlocked, an update runs.
    const insert = await call<SparqlResult>(engine, 'sparql:query', {
      kb: 'sparql',
      query: 'INSERT DATA { <urn:a> <urn:b> <urn:c> }',
      allowUpdate: true,
    });
    expect(insert.kind).toBe('update');
    expect(await count()).toBe(before + 1);
  });

  it('refuses to reach out: LOAD and SERVICE fail typed, even when updates are allowed', async () => {
    for (const [query, allowUpdate] of [
      ['LOAD <http://203.0.113.1/data.ttl>', true],
      ['SELECT * WHERE { SERVICE <http://203.0.113.1/sparql> { ?s ?p ?o } }', false],
    ] as const) {
      const started = performance.now();
      const reply = await engine.call('sparql:query', { kb: 'sparql', query, allowUpdate, timeoutMs: 5000 });
      expect(reply.ok, query).toBe(false);
      if (!reply.ok)
        expect(
          ['BAD_INPUT', 'UNSUPPORTED', 'NETWORK_BLOCKED'],
          `${query}: ${reply.error.code} ${reply.error.message}`,
        ).toContain(reply.error.code);
      expect(performance.now() - started).toBeLessThan(5000);
    }
  });

  it('stops a cartesian product at the time limit and answers the next query', async () => {
    const started = performance.now();
    const reply = await engine.call('sparql:query', {
      kb: 'sparql',
      query: 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n2 ?o }',
      timeoutMs: 1000,
    });
    const elapsed = performance.now() - started;
    expect(reply).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(5000);
    // The next query is answered, from a store rebuilt from the database: every imported
    // statement is back (the unlocked INSERT above lived in the derived view only).
    expect(imported).toBeGreaterThan(0);
    expect(await count()).toBe(imported);
    const ask = await call<SparqlResult>(engine, 'sparql:query', {
      kb: 'sparql',
      query: 'ASK { <http://example.org/p1> ?p ?o }',
    });
    expect(ask.boolean).toBe(true);
  });
});

describe('model files through the Api', () => {
  const bad = join(dir, 'models');
  let good: Buffer;

  beforeAll(async () => {
    mkdirSync(bad, { recursive: true });
    good = readFileSync(await tinyLlamaPath());
  });

  /** A damaged copy of the tiny model under `name`. */
  const damaged = (name: string, damage: (b: Buffer) => Buffer): string => {
    const path = join(bad, name);
    writeFileSync(path, damage(Buffer.from(good)));
    return path;
  };

  const ggufCases = (): [string, () => Promise<string> | string][] => [
    ['truncated-header.gguf', () => damaged('truncated-header.gguf', (b) => b.subarray(0, 2000))],
    ['truncated-tensors.gguf', () => damaged('truncated-tensors.gguf', (b) => b.subarray(0, b.length - 10_000))],
    [
      'absurd-tensor-count.gguf',
      () => damaged('absurd-tensor-count.gguf', (b) => (b.writeBigUInt64LE(1n << 60n, 8), b)),
    ],
    [
      'absurd-metadata-count.gguf',
      () => damaged('absurd-metadata-count.gguf', (b) => (b.writeBigUInt64LE(50_000_000n, 16), b)),
    ],
    ['absurd-string.gguf', () => damaged('absurd-string.gguf', (b) => (b.writeBigUInt64LE(0xffff_ffff_ffffn, 24), b))],
    [
      'absurd-tensor-dims.gguf',
      async () => {
        const path = join(bad, 'absurd-tensor-dims.gguf');
        await writeGguf(path, { 'general.architecture': 'llama' }, [{ name: 'w', dims: [4], fill: (o) => o.fill(1) }]);
        const bytes = readFileSync(path);
        // The tensor's single dimension (after its name) becomes 2^40 elements.
        const at = bytes.indexOf(Buffer.from('w')) + 1 + 4;
        bytes.writeBigUInt64LE(1n << 40n, at);
        writeFileSync(path, bytes);
        return path;
      },
    ],
    [
      'png-renamed.gguf',
      () =>
        damaged('png-renamed.gguf', () =>
          Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(4096, 7)]),
        ),
    ],
    [
      'text-renamed.gguf',
      () =>
        damaged('text-renamed.gguf', () => Buffer.from('This is not a model, whatever its name says.\n'.repeat(50))),
    ],
    ['empty.gguf', () => damaged('empty.gguf', () => Buffer.alloc(0))],
    [
      'folder.gguf',
      () => {
        const path = join(bad, 'folder.gguf');
        mkdirSync(path, { recursive: true });
        return path;
      },
    ],
  ];

  const expectClearError = (reply: Reply<unknown>, name: string, codes: string[]): void => {
    expect(reply.ok, name).toBe(false);
    if (reply.ok) return;
    expect(codes, `${name}: ${reply.error.code}: ${reply.error.message}`).toContain(reply.error.code);
    expect(reply.error.message, name).toContain(name);
    expect(reply.error.message.length).toBeLessThan(2000);
  };

  it('unusable GGUF files: models:inspect and models:load answer BAD_INPUT naming the file, fast, and load nothing', async () => {
    for (const [name, make] of ggufCases()) {
      const path = await make();
      for (const [method, payload] of [
        ['models:inspect', { path }],
        ['models:load', { path, role: 'generation' }],
      ] as const) {
        const started = performance.now();
        const reply = await engine.call(method, payload);
        expectClearError(reply, name, ['BAD_INPUT']);
        expect(performance.now() - started, `${method} ${name}`).toBeLessThan(10_000);
      }
    }
    expect(await call(engine, 'models:status', {})).toEqual({ generation: null, embedding: null });
    expect(await call(engine, 'system:getSettings', {})).toMatchObject({ generationModel: null, embeddingModel: null });
  });

  it('ONNX folders missing files: a clear error naming the folder and what is missing', async () => {
    const folder = (name: string, files: Record<string, string>): string => {
      const path = join(bad, name);
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(join(path, file, '..'), { recursive: true });
        writeFileSync(join(path, file), text);
      }
      return path;
    };
    const config = JSON.stringify({ model_type: 'bert', hidden_size: 32 });
    const tokenizer = { 'tokenizer.json': '{}', 'tokenizer_config.json': '{}' };
    const cases: [string, Record<string, string>, RegExp, string[]][] = [
      ['onnx-no-graph', { 'config.json': config, ...tokenizer }, /onnx\/model\.onnx/, ['BAD_INPUT']],
      ['onnx-no-tokenizer', { 'config.json': config, 'onnx/model.onnx': 'graph' }, /tokenizer\.json/, ['BAD_INPUT']],
      ['onnx-no-config', { ...tokenizer, 'onnx/model.onnx': 'graph' }, /config\.json/, ['BAD_INPUT']],
      [
        'onnx-bad-config',
        { 'config.json': '{ not json', ...tokenizer, 'onnx/model.onnx': 'graph' },
        /config\.json|JSON/,
        ['BAD_INPUT'],
      ],
      [
        'onnx-garbage-graph',
        { 'config.json': config, ...tokenizer, 'onnx/model.onnx': 'this is not protobuf' },
        /.*/,
        ['BAD_INPUT', 'MODEL_ERROR'],
      ],
    ];
    for (const [name, files, missing, codes] of cases) {
      const path = folder(name, files);
      const started = performance.now();
      const load = await engine.call('models:load', { path, role: 'embedding' });
      expectClearError(load, name, codes);
      if (!load.ok) expect(load.error.message, name).toMatch(missing);
      expect(performance.now() - started, name).toBeLessThan(20_000);
    }
    // inspect reads config.json only; without a graph the folder is no model at all.
    expectClearError(await engine.call('models:inspect', { path: join(bad, 'onnx-no-graph') }), 'onnx-no-graph', [
      'BAD_INPUT',
    ]);
    expectClearError(await engine.call('models:inspect', { path: join(bad, 'onnx-bad-config') }), 'onnx-bad-config', [
      'BAD_INPUT',
    ]);
    expect(await call(engine, 'models:status', {})).toMatchObject({ embedding: null });
    expect(await call(engine, 'system:getSettings', {})).toMatchObject({ embeddingModel: null });
  });

  it('imports refuse the same files and copy nothing into the models folder', async () => {
    for (const [name, make] of ggufCases().slice(0, 4)) {
      const reply = await engine.call('models:import', { path: await make(), mode: 'copy' });
      expectClearError(reply, name, ['BAD_INPUT']);
    }
    expect((await call<{ file: string }[]>(engine, 'models:list', {})).map((m) => basename(m.file))).toEqual([]);
  });
});

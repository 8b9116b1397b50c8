import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { inspectGguf } from '../../src-main/engine/models/inspectGguf.js';
import { LlamaCppLlm } from '../../src-main/engine/models/LlamaCppLlm.js';
import { ModelManager } from '../../src-main/engine/models/ModelManager.js';
import { writeGguf } from '../fixtures/ggufWriter.js';
import { tinyLlamaPath, tinyLlamaVocabulary } from '../fixtures/tinyLlama.js';
import { createServer } from 'node:net';

let good: string;
let dir: string;
/** A local port nothing listens on (fetch refuses "bad ports" such as 9, so take a real free one). */
let closedPort: number;

beforeAll(async () => {
  good = await tinyLlamaPath();
  dir = mkdtempSync(join(tmpdir(), 'polyhop-models-'));
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closedPort = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
});

/** Writes a damaged variant of the fixture and returns its path. */
function variant(name: string, damage: (bytes: Buffer) => Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, damage(Buffer.from(readFileSync(good))));
  return path;
}

describe('unusable GGUF files give BAD_INPUT naming the file, fast and without big allocations', () => {
  const cases: [string, (b: Buffer) => Buffer, RegExp][] = [
    ['truncated-header.gguf', (b) => b.subarray(0, 3000), /truncated or corrupt/],
    ['truncated-tensors.gguf', (b) => b.subarray(0, b.length - 4096), /tensor data needs/],
    ['random.gguf', (b) => Buffer.from(b.map((_, i) => (i * 7919 + 13) & 255)), /magic/],
    ['tensor-count.gguf', (b) => (b.writeBigUInt64LE(1n << 62n, 8), b), /tensors/],
    ['metadata-count.gguf', (b) => (b.writeBigUInt64LE(10_000_000n, 16), b), /metadata entries/],
    ['string-length.gguf', (b) => (b.writeBigUInt64LE(3_000_000_000n, 24), b), /claims 3000000000 bytes/],
    ['version.gguf', (b) => (b.writeUInt32LE(1, 4), b), /version 1/],
    ['tiny.gguf', (b) => b.subarray(0, 10), /only 10 bytes/],
  ];
  for (const [name, damage, reason] of cases) {
    it(name, async () => {
      const path = variant(name, damage);
      const rssBefore = process.memoryUsage().rss;
      const started = performance.now();
      const error = await inspectGguf(path).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'BAD_INPUT', details: { file: path } });
      expect((error as Error).message).toContain(name);
      expect((error as Error).message).toMatch(reason);
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(256 << 20);
    });
  }

  it('an unsupported architecture', async () => {
    const path = join(dir, 'unknown-arch.gguf');
    await writeGguf(path, { 'general.architecture': 'not-a-real-arch' }, [
      { name: 'w', dims: [4], fill: (o) => o.fill(1) },
    ]);
    await expect(inspectGguf(path)).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringMatching(/unknown-arch\.gguf.*not-a-real-arch/),
    });
  });

  it('LlamaCppLlm.create refuses a corrupt file before llama.cpp sees it', async () => {
    const path = variant('for-create.gguf', (b) => b.subarray(0, b.length - 4096));
    await expect(LlamaCppLlm.create({ path, threads: 1, gpu: false })).rejects.toMatchObject({ code: 'BAD_INPUT' });
  });

  it('inspects the good fixture', async () => {
    const info = await inspectGguf(good);
    expect(info).toMatchObject({
      architecture: 'llama',
      contextLength: 2048,
      embeddingLength: 64,
      quantisation: 'ALL_F32',
    });
    expect(info.parameters).toBeGreaterThan(100_000);
    expect(info.chatTemplate).toContain('<|im_start|>');
    expect(info.metadata['llama.block_count']).toBe(2);
    expect(info.metadata['tokenizer.ggml.tokens.length']).toBe(tinyLlamaVocabulary().tokens.length); // arrays become their length
  });
});

describe('ModelManager', () => {
  const catalog = () => {
    const path = join(dir, 'catalog.json');
    const base = { role: 'generation', name: 'Offline test', sizeBytes: 1000, licence: 'MIT', languages: ['en'] };
    writeFileSync(
      path,
      JSON.stringify({
        version: 1,
        models: [
          {
            ...base,
            id: 'unreachable-gguf',
            format: 'gguf',
            file: 'never.gguf',
            uri: `http://127.0.0.1:${closedPort}/never.gguf`,
          },
          {
            ...base,
            id: 'unreachable-onnx',
            role: 'embedding',
            format: 'onnx',
            file: 'never-onnx',
            uri: `http://127.0.0.1:${closedPort}/m/`,
            files: ['config.json'],
          },
        ],
      }),
    );
    return path;
  };

  it('imports (copy and reference), lists, inspects and removes', async () => {
    const modelsDir = join(dir, 'installed');
    const manager = new ModelManager({ modelsDir, catalogPath: catalog() });
    expect(await manager.list()).toEqual([]);
    const copied = await manager.import(good, 'copy');
    expect(copied).toMatchObject({ kind: 'gguf', path: join(modelsDir, copied.file) });
    await expect(manager.import(good, 'copy')).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });

    const onnx = join(dir, 'onnx-model');
    mkdirSync(join(onnx, 'onnx'), { recursive: true });
    writeFileSync(
      join(onnx, 'config.json'),
      JSON.stringify({ model_type: 'bert', hidden_size: 32, max_position_embeddings: 128 }),
    );
    writeFileSync(join(onnx, 'onnx', 'model.onnx'), 'graph');
    const referenced = await manager.import(onnx, 'reference');
    expect(referenced).toMatchObject({ kind: 'onnx', path: onnx });
    expect(await manager.inspect(onnx)).toMatchObject({
      architecture: 'bert',
      embeddingLength: 32,
      contextLength: 128,
    });

    const listed = await manager.list();
    expect(listed.map((m) => m.kind).sort()).toEqual(['gguf', 'onnx']);

    const junk = join(dir, 'notes.txt');
    writeFileSync(junk, 'hello');
    await expect(manager.import(junk)).rejects.toMatchObject({ code: 'BAD_INPUT' });
    copyFileSync(join(dir, 'random.gguf'), join(dir, 'bad-import.gguf'));
    await expect(manager.import(join(dir, 'bad-import.gguf'))).rejects.toMatchObject({ code: 'BAD_INPUT' });

    await manager.remove('onnx-model');
    expect(existsSync(onnx)).toBe(true); // a reference is forgotten, never deleted
    await manager.remove(copied.file);
    expect(existsSync(copied.path)).toBe(false);
    expect(await manager.list()).toEqual([]);
    await expect(manager.remove('../catalog.json')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('lists the catalog with installed flags', async () => {
    const manager = new ModelManager({ modelsDir: join(dir, 'installed2'), catalogPath: catalog() });
    const entries = await manager.catalog();
    expect(entries.map((e) => [e.id, e.installed])).toEqual([
      ['unreachable-gguf', false],
      ['unreachable-onnx', false],
    ]);
  });

  it('fails a download clearly and quickly when the host is unreachable', async () => {
    const manager = new ModelManager({ modelsDir: join(dir, 'installed3'), catalogPath: catalog() });
    for (const id of ['unreachable-gguf', 'unreachable-onnx']) {
      const started = performance.now();
      const error = await manager.download(id).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'UNSUPPORTED', details: { offline: true } });
      expect((error as Error).message).toMatch(/offline/);
      expect(performance.now() - started).toBeLessThan(20_000);
    }
    await expect(manager.download('no-such-id')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

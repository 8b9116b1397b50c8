import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KnowledgeBase } from '../../../src-main/engine/kb/KnowledgeBase.js';
import { createKb, expectNoOrphans, orphanReport, tempDir } from './kbFixtures.js';

const writer = fileURLToPath(new URL('./crashWriter.ts', import.meta.url));

describe('KnowledgeBase after a kill in the middle of a large write', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = tempDir()));
  afterEach(() => cleanup());

  it('reopens consistent, with the committed work and nothing of the killed transaction', async () => {
    const file = createKb(dir).file;
    const child = spawn(process.execPath, ['--import', 'tsx', writer, file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const seen: string[] = [];
    const killed = new Promise<NodeJS.Signals | null>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        seen.push(...d.toString().split('\n').filter(Boolean));
        if (seen.includes('mid-transaction')) child.kill('SIGKILL');
      });
      child.on('exit', (_code, signal) =>
        signal ? resolve(signal) : reject(new Error(`writer exited on its own: ${stderr}`)),
      );
    });
    expect(await killed).toBe('SIGKILL');
    expect(seen).toEqual(['committed', 'mid-transaction']);
    // The uncommitted transaction had spilled into the WAL: that is what recovery must discard.
    expect(existsSync(`${file}-wal`) && statSync(`${file}-wal`).size).toBeGreaterThan(4_000_000);

    const kb = KnowledgeBase.open(file);
    try {
      expect(expectNoOrphans(orphanReport(file))).toEqual({});
      expect(kb.documents.findDocumentByPath('/committed.txt')).toMatchObject({ chunkCount: 1 });
      expect(kb.documents.findDocumentByPath('/big.txt')).toBeUndefined();
      expect(kb.stats()).toMatchObject({
        documents: 1,
        chunks: 1,
        entities: 0,
        triples: 0,
        vectors: { chunk: 1, triple: 0 },
      });
      expect(kb.textIndex.bm25('chunk', 'big chunk number', 10)).toEqual([]);
      expect(kb.textIndex.bm25('chunk', 'committed', 10)).toHaveLength(1);
      expect(kb.vectors.knn('chunk', new Float32Array(1024).fill(1), 10)).toHaveLength(1);
      // And it is writable again.
      expect(kb.graph.upsertEntity('After', 'thing')).toBeGreaterThan(0);
    } finally {
      kb.close();
    }
  });
});

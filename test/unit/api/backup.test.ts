import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KbInfo } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { CORPUS_DIR, CORPUS_FILES, CorpusEmbedder, corpusRules } from '../../support/corpusScript.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';
import { call, runJobToEnd, tempEngine } from '../../support/tempEngine.js';

describe('backup and restore', () => {
  let engine: Engine;
  let dispose: () => Promise<void>;
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-backup-'));

  beforeAll(async () => {
    // Latency keeps the indexing job running while the backup is taken.
    ({ engine, dispose } = await tempEngine({
      llm: new ScriptedLlm(corpusRules(), { latencyMs: 20 }),
      embedder: new CorpusEmbedder(),
    }));
    await call(engine, 'kb:create', { name: 'odyssey' });
    await call(engine, 'docs:add', { kb: 'odyssey', paths: CORPUS_FILES.map((f) => join(CORPUS_DIR, f)) });
  });
  afterAll(() => dispose());

  it('backs up to one file while indexing runs, and restores it verified under a new name', async () => {
    const indexing = runJobToEnd(engine, 'index:start', { kb: 'odyssey' });
    const file = join(dir, 'odyssey.polyhop');
    const backup = await runJobToEnd(engine, 'kb:backup', { kb: 'odyssey', outputPath: file });
    expect(backup.error).toBeNull();
    expect((await indexing).status).toBe('done');
    // One file: no `.part`, `.part-wal` or `.part-shm` beside it (issue 24 point 16).
    expect(readdirSync(dir).filter((f) => f.startsWith('odyssey.polyhop'))).toEqual(['odyssey.polyhop']);

    const restored = await runJobToEnd(engine, 'kb:restore', { inputPath: file, name: 'odyssey copy' });
    expect(restored.error).toBeNull();
    const info = await call<KbInfo>(engine, 'kb:info', { kb: 'odyssey copy' });
    expect(info.documentCount).toBe(4);

    // A backup taken after indexing restores everything indexing wrote.
    const later = join(dir, 'after.polyhop');
    await runJobToEnd(engine, 'kb:backup', { kb: 'odyssey', outputPath: later });
    await runJobToEnd(engine, 'kb:restore', { inputPath: later, name: 'odyssey copy', replace: true });
    const original = await call<KbInfo>(engine, 'kb:info', { kb: 'odyssey' });
    const copy = await call<KbInfo>(engine, 'kb:info', { kb: 'odyssey copy' });
    expect({ ...copy, name: '', baseIri: '', sizeBytes: 0, rdf: null, createdAt: '' }).toEqual({
      ...original,
      name: '',
      baseIri: '',
      sizeBytes: 0,
      rdf: null,
      createdAt: '',
    });
  });

  it('refuses a damaged or foreign file and keeps the existing KB', async () => {
    const junk = join(dir, 'junk.polyhop');
    writeFileSync(junk, 'SQLite format 3\0 but not really');
    const job = await runJobToEnd(engine, 'kb:restore', { inputPath: junk, name: 'odyssey', replace: true });
    expect(job.status).toBe('failed');
    expect(['BAD_INPUT', 'UNSUPPORTED']).toContain(job.error?.code);
    const still = await call<KbInfo>(engine, 'kb:info', { kb: 'odyssey' });
    expect(still.documentCount).toBe(4);
  });
});

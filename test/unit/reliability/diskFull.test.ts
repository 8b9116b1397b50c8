import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src-main/engine/api/Engine.js';
import { appPaths } from '../../../src-main/engine/api/paths.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';
import { call, repoRoot, runJobToEnd, tempEngine } from '../../support/tempEngine.js';
import { snapshot } from '../mder/support/corpusKb.js';
import { databaseHealth, rdfAgainstSqlite } from './support/kbChecks.js';
import { SyntheticEmbedder, syntheticRules, writeSyntheticCorpus } from './support/syntheticCorpus.js';

/**
 * Issue 9, "Crash safety": a full disk during indexing (the KB's SQLite capped with
 * `max_page_count`, which fails writes with SQLITE_FULL as a full disk does) and during export (the
 * output is /dev/full): a STORAGE_FULL error, an intact database, nothing indexed before lost, and
 * the job completes once there is space again, with the KB an uninterrupted run builds.
 */

const KB = 'full';
let dir: string;
let first: string;
let second: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'polyhop-full-'));
  first = join(dir, 'first');
  second = join(dir, 'second');
  writeSyntheticCorpus(first, 6, { seed: 11, prefix: 'first' });
  writeSyntheticCorpus(second, 10, { seed: 12, prefix: 'second' });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function engineWithModels() {
  return tempEngine({ llm: new ScriptedLlm(syntheticRules()), embedder: new SyntheticEmbedder() });
}

/** A second engine on an existing data directory (a restart). */
async function tempEngineOn(dataDir: string) {
  const engine = await Engine.create({ paths: appPaths(repoRoot, dataDir, join(dataDir, 'models')) });
  return { engine, dispose: () => engine.dispose() };
}

async function indexFolder(engine: Engine, folder: string) {
  await call(engine, 'docs:add', { kb: KB, paths: [folder] });
  return runJobToEnd(engine, 'index:start', { kb: KB });
}

/** What a KB holds from the documents of `folder`: their rows and chunks, and the facts read from them. */
function partOf(snap: ReturnType<typeof snapshot>, titles: Set<string>) {
  const ofTitle = (label: string) => titles.has(label.slice(0, label.lastIndexOf('#')));
  return {
    documents: snap.documents.filter((d) => titles.has(d.title)),
    chunks: snap.chunks.filter((c) => ofTitle(c.chunk!)),
    facts: snap.triples.filter((t) => t.split(' | ').at(-1)!.split(',').some(ofTitle)).length,
  };
}

describe('a full disk', () => {
  it('during indexing: STORAGE_FULL, intact database, nothing indexed lost, and the job resumes once there is space', async () => {
    const reference = await engineWithModels();
    await call(reference.engine, 'kb:create', { name: KB });
    expect((await indexFolder(reference.engine, first)).status).toBe('done');
    expect((await indexFolder(reference.engine, second)).status).toBe('done');
    const expected = snapshot(reference.engine.kbs.get(KB).kb);
    await reference.dispose();

    const { engine, dispose } = await engineWithModels();
    try {
      await call(engine, 'kb:create', { name: KB });
      expect((await indexFolder(engine, first)).status).toBe('done');
      const { kb } = engine.kbs.get(KB);
      const file = engine.kbs.registry.get(KB).file;
      const firstTitles = new Set(snapshot(kb).documents.map((d) => d.title));
      const before = partOf(snapshot(kb), firstTitles);
      expect(before.documents.every((d) => d.status === 'indexed')).toBe(true);
      expect(before.facts).toBeGreaterThan(0);

      await call(engine, 'docs:add', { kb: KB, paths: [second] });
      // Each attempt gets a little more room than the last one used: the job fails at every stage's writes in turn.
      const failures: { code: string; message: string; stage: string | undefined }[] = [];
      for (let room = 0; failures.length < 40; room = Math.max(1, room * 2)) {
        kb.capPages(kb.capPages(1) + room);
        const job = await runJobToEnd(engine, 'index:start', { kb: KB });
        if (job.status === 'done') break;
        expect(job.status).toBe('failed');
        failures.push({ code: job.error!.code, message: job.error!.message, stage: job.progress?.stage });

        const health = databaseHealth(file);
        expect(health.integrity).toEqual(['ok']);
        expect(health.foreignKeys).toEqual([]);
        const now = snapshot(kb);
        const part = partOf(now, firstTitles);
        expect(part.documents).toEqual(before.documents);
        expect(part.chunks).toEqual(before.chunks);
        expect(part.facts).toBeGreaterThanOrEqual(before.facts);
        // A full disk is not the documents' fault: none of them is marked failed for it.
        expect(now.documents.filter((d) => d.status === 'error')).toEqual([]);
      }
      console.log(
        `disk full: ${failures.length} failed attempts:\n${failures.map((f) => `  ${f.stage}: ${f.code} ${f.message}`).join('\n')}`,
      );
      expect(failures.length).toBeGreaterThanOrEqual(3);
      for (const f of failures) {
        expect(f.code).toBe('STORAGE_FULL');
        expect(f.message).toContain(file);
      }
      expect(new Set(failures.map((f) => f.stage)).size).toBeGreaterThanOrEqual(3);

      kb.capPages(null);
      const last = await runJobToEnd(engine, 'index:start', { kb: KB });
      expect(last.status).toBe('done');
      expect(snapshot(kb)).toEqual(expected);
      const rdf = await rdfAgainstSqlite(engine, KB, kb);
      expect(rdf.view).toEqual(rdf.sqlite);
    } finally {
      await dispose();
    }
  }, 120_000);

  it('closing the engine on a full disk still releases the KB, and the file stays intact', async () => {
    const { engine, dataDir, dispose } = await engineWithModels();
    await call(engine, 'kb:create', { name: KB });
    expect((await indexFolder(engine, first)).status).toBe('done');
    const { kb } = engine.kbs.get(KB);
    const file = engine.kbs.registry.get(KB).file;
    const before = snapshot(kb);
    kb.capPages(0); // no room at all: the statistics refresh on close cannot write
    await engine.dispose();
    expect(kb.closed).toBe(true);
    expect(databaseHealth(file).integrity).toEqual(['ok']);
    const { engine: reopened, dispose: disposeReopened } = await tempEngineOn(dataDir);
    expect(snapshot(reopened.kbs.get(KB).kb)).toEqual(before);
    await disposeReopened();
    await dispose().catch(() => undefined);
  }, 60_000);

  it('during export: STORAGE_FULL, no partial file left, the KB intact, and the export works once there is space', async () => {
    const { engine, dispose } = await engineWithModels();
    try {
      await call(engine, 'kb:create', { name: KB });
      expect((await indexFolder(engine, first)).status).toBe('done');
      const out = join(dir, 'export.ttl');
      // The export writes `<out>.part` and renames it: pointing that at /dev/full makes every write fail with ENOSPC.
      symlinkSync('/dev/full', `${out}.part`);
      const failed = await runJobToEnd(engine, 'rdf:export', {
        kb: KB,
        format: 'turtle',
        scope: { kind: 'all' },
        outputPath: out,
      });
      expect(failed.status).toBe('failed');
      expect(failed.error).toMatchObject({ code: 'STORAGE_FULL' });
      expect(failed.error!.message).toContain(out);
      expect(existsSync(out)).toBe(false);
      expect(existsSync(`${out}.part`)).toBe(false);
      expect(databaseHealth(engine.kbs.registry.get(KB).file).integrity).toEqual(['ok']);

      const done = await runJobToEnd(engine, 'rdf:export', {
        kb: KB,
        format: 'turtle',
        scope: { kind: 'all' },
        outputPath: out,
      });
      expect(done.status).toBe('done');
      const turtle = readFileSync(out, 'utf8');
      const { kb } = engine.kbs.get(KB);
      for (const t of kb.graph.iterateTriples()) expect(turtle).toContain(t.description!);
    } finally {
      await dispose();
    }
  }, 60_000);
});

import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  DocumentPage,
  EntitySummaryView,
  Events,
  SparqlResult,
  WatchedFolderView,
} from '../../../../src-main/engine/api/contract.js';
import { Engine } from '../../../../src-main/engine/api/Engine.js';
import { appPaths } from '../../../../src-main/engine/api/paths.js';
import { CORPUS_DIR, CorpusEmbedder, corpusRules } from '../../../support/corpusScript.js';
import { ScriptedLlm } from '../../../support/ScriptedLlm.js';
import { call, repoRoot } from '../../../support/tempEngine.js';

type Synced = Events['watch:synced'];

/** The next `watch:synced` of a folder; subscribe before the change that causes it. */
function nextSync(engine: Engine, matches: (s: Synced) => boolean = () => true): Promise<Synced> {
  return new Promise((resolve) => {
    const off = engine.onEvent((e) => {
      if (e.name === 'watch:synced' && matches(e.payload)) {
        off();
        resolve(e.payload);
      }
    });
  });
}

/** Waits until no job runs (an index job started by a sync may start another right after it). */
async function jobsSettled(engine: Engine): Promise<void> {
  for (;;) {
    const running = engine.jobs.list().filter((j) => j.status === 'running');
    if (running.length === 0) return;
    for (const job of running) await engine.jobs.settled(job.jobId);
  }
}

async function documents(engine: Engine): Promise<Map<string, DocumentPage['rows'][number]>> {
  const page = await call<DocumentPage>(engine, 'docs:list', { kb: 'odyssey', limit: 100 });
  return new Map(page.rows.map((d) => [d.path, d]));
}

async function rdfDocumentPaths(engine: Engine): Promise<string[]> {
  const result = await call<SparqlResult>(engine, 'sparql:query', {
    kb: 'odyssey',
    query:
      'PREFIX ph: <https://polyhop.app/ontology#> SELECT ?uri WHERE { ?d a ph:Document ; ph:hasUri ?uri } ORDER BY ?uri',
  });
  return result.rows.map((r) => r.uri!);
}

async function entityNames(engine: Engine, query: string): Promise<string[]> {
  return (await call<EntitySummaryView[]>(engine, 'graph:search', { kb: 'odyssey', query })).map((e) => e.name);
}

const corpus = (name: string) => readFileSync(join(CORPUS_DIR, name), 'utf8');

describe('a watched folder', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'polyhop-watch-data-'));
  const folder = mkdtempSync(join(tmpdir(), 'polyhop-watch-folder-'));
  const llm = new ScriptedLlm(corpusRules());
  const open = () =>
    Engine.create({
      paths: appPaths(repoRoot, dataDir, join(dataDir, 'models')),
      models: { llm, embedder: new CorpusEmbedder() },
      watchTimings: { debounceMs: 150 },
    });
  let engine: Engine;
  const path = (name: string) => join(folder, name);

  beforeAll(async () => {
    engine = await open();
    await call(engine, 'kb:create', { name: 'odyssey' });
    copyFileSync(join(CORPUS_DIR, 'odysseus.en.md'), path('odysseus.en.md'));
    copyFileSync(join(CORPUS_DIR, 'ulisse.it.txt'), path('ulisse.it.txt'));
    // Lock, temporary, dependency and user-ignored files beside them are never documents.
    writeFileSync(path('~$draft.docx'), 'owner file');
    writeFileSync(path('.~lock.letter.odt#'), 'lock');
    writeFileSync(path('upload.tmp'), 'partial');
    mkdirSync(path('node_modules/pkg'), { recursive: true });
    writeFileSync(path('node_modules/pkg/README.md'), '# a dependency');
    mkdirSync(path('drafts'));
    writeFileSync(path('drafts/notes.md'), '# not yet');
  });
  afterAll(async () => {
    await engine.dispose();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(folder, { recursive: true, force: true });
  });

  it('is caught up and indexed when watching starts, leaving lock, temporary, dependency and ignored files out', async () => {
    await engine.watches.start();
    const synced = nextSync(engine);
    const view = await call<WatchedFolderView>(engine, 'watch:add', {
      kb: 'odyssey',
      path: folder,
      ignore: ['drafts'],
    });
    expect(view).toMatchObject({ kb: 'odyssey', path: folder, ignore: ['drafts'], mode: 'events' });
    expect(await synced).toMatchObject({ added: 2, removed: 0 });
    await jobsSettled(engine);
    const docs = await documents(engine);
    expect([...docs.keys()].sort()).toEqual([path('odysseus.en.md'), path('ulisse.it.txt')]);
    expect([...docs.values()].map((d) => d.status)).toEqual(['indexed', 'indexed']);
    expect(await entityNames(engine, 'Poseidon')).toContain('Poseidon');
    expect(await rdfDocumentPaths(engine)).toEqual([path('odysseus.en.md'), path('ulisse.it.txt')]);
  });

  it('indexes a new file, and not the lock and temporary files created with it', async () => {
    const synced = nextSync(engine, (s) => s.added > 0);
    writeFileSync(path('~$nelope.docx'), 'owner file');
    writeFileSync(path('penelope.fr.txt.crdownload'), 'partial');
    writeFileSync(path('drafts/penelope.md'), '# draft');
    writeFileSync(path('penelope.fr.txt'), corpus('penelope.fr.txt'));
    expect(await synced).toMatchObject({ added: 1 });
    await jobsSettled(engine);
    const docs = await documents(engine);
    expect(docs.get(path('penelope.fr.txt'))).toMatchObject({ status: 'indexed' });
    expect(docs.size).toBe(3);
    expect(await rdfDocumentPaths(engine)).toContain(path('penelope.fr.txt'));
  });

  it('re-indexes a changed file: what only its old text said goes, its new text is extracted', async () => {
    expect(await entityNames(engine, 'Beggar')).toContain('Beggar');
    const synced = nextSync(engine, (s) => s.added > 0);
    writeFileSync(path('ulisse.it.txt'), corpus('telemaco.es.txt'));
    expect(await synced).toMatchObject({ added: 1 });
    await jobsSettled(engine);
    expect((await documents(engine)).get(path('ulisse.it.txt'))).toMatchObject({ status: 'indexed', language: 'es' });
    expect(await entityNames(engine, 'Beggar')).not.toContain('Beggar');
  });

  it('keeps a moved file as the same document, with nothing extracted again', async () => {
    const before = (await documents(engine)).get(path('penelope.fr.txt'))!;
    const calls = llm.calls.length;
    const synced = nextSync(engine, (s) => s.renamed > 0);
    mkdirSync(path('letters'));
    renameSync(path('penelope.fr.txt'), path('letters/penelope.txt'));
    expect(await synced).toMatchObject({ renamed: 1, added: 0, removed: 0 });
    await jobsSettled(engine);
    const docs = await documents(engine);
    expect(docs.has(path('penelope.fr.txt'))).toBe(false);
    expect(docs.get(path('letters/penelope.txt'))).toMatchObject({
      id: before.id,
      status: 'indexed',
      tripleCount: before.tripleCount,
      title: 'penelope',
    });
    expect(llm.calls.length).toBe(calls);
    expect(await rdfDocumentPaths(engine)).toContain(path('letters/penelope.txt'));
    expect(await rdfDocumentPaths(engine)).not.toContain(path('penelope.fr.txt'));
  });

  it('removes a deleted file with what only it said, from the KB, the graph and the RDF view', async () => {
    const synced = nextSync(engine, (s) => s.removed > 0);
    unlinkSync(path('odysseus.en.md'));
    expect(await synced).toMatchObject({ removed: 1 });
    await jobsSettled(engine);
    expect((await documents(engine)).has(path('odysseus.en.md'))).toBe(false);
    expect(await entityNames(engine, 'Poseidon')).not.toContain('Poseidon');
    expect(await rdfDocumentPaths(engine)).not.toContain(path('odysseus.en.md'));
  });

  it('catches up after a restart with what changed while nothing watched', async () => {
    await engine.dispose();
    unlinkSync(path('ulisse.it.txt'));
    copyFileSync(join(CORPUS_DIR, 'odysseus.en.md'), path('odysseus.again.md'));
    engine = await open();
    expect(
      (await call<WatchedFolderView[]>(engine, 'watch:list', { kb: 'odyssey' })).map((w) => [w.path, w.mode]),
    ).toEqual([[folder, 'stopped']]);
    const synced = nextSync(engine);
    await engine.watches.start();
    expect(await synced).toMatchObject({ added: 1, removed: 1 });
    await jobsSettled(engine);
    const docs = await documents(engine);
    expect([...docs.keys()].sort()).toEqual([path('letters/penelope.txt'), path('odysseus.again.md')]);
    expect(docs.get(path('odysseus.again.md'))).toMatchObject({ status: 'indexed' });
    expect(await entityNames(engine, 'Poseidon')).toContain('Poseidon');
    expect(await rdfDocumentPaths(engine)).toEqual([path('letters/penelope.txt'), path('odysseus.again.md')]);
  });

  it('stops following a folder it is told to forget, keeping its documents', async () => {
    expect(await call(engine, 'watch:remove', { kb: 'odyssey', path: folder })).toEqual({ removed: true });
    expect(await call(engine, 'watch:list', {})).toEqual([]);
    expect((await documents(engine)).size).toBe(2);
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src-main/engine/api/Engine.js';
import { appPaths } from '../../../src-main/engine/api/paths.js';
import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import { repoRoot } from '../../support/tempEngine.js';
import { expectNoOrphans, orphanReport } from '../kb/kbFixtures.js';
import { databaseHealth, rdfAgainstSqlite } from './support/kbChecks.js';
import { syntheticCanonical, syntheticTriples, writeSyntheticCorpus } from './support/syntheticCorpus.js';

/**
 * Issue 25, watched folders: "nothing indexed is lost if the app is killed mid-sync". A front door
 * that keeps a folder in sync (support/watchChild.ts) is SIGKILLed at rest and at points of the
 * sync sized by work done — after n documents of the job were ingested and committed, inside
 * preprocess, enrich and embed — while files are added, changed and removed under it (while it
 * runs, and while it is down), and restarted each time. After every kill the KB opens intact,
 * with no orphan rows, its RDF view in step, and every document indexed before the kill whose
 * file was not touched still there as it was; at the end the KB is the folder: each file one
 * indexed document of its current content, every fact its text states and no other.
 *
 * The kills in a sync are placed by holding a call of the stage open until the kill (as in
 * killAtRandom.test.ts), so where they land does not depend on the machine's speed.
 */

const KB_NAME = 'watched';
const CHILD = join(import.meta.dirname, 'support/watchChild.ts');

/** What happens in one run of the child: changes while it is down, changes while it runs, where it is killed. */
interface Run {
  /** `<stage>:<call>[:<n>]`, see watchChild.ts; none: killed once idle. */
  hold?: string;
  /** Made before the child starts: caught up by its scan on start. */
  offline?: (folder: Folder) => void;
  /** Made while it runs: once it is idle after its catch-up, or once its index job is held. */
  live?: { when: 'idle' | 'held'; change: (folder: Folder) => void };
}

interface RunOutcome {
  /** `held <stage>` or `idle`: where the run was when killed. */
  killedAt: string;
  lines: string[];
}

/** The watched folder and a stock of synthetic documents to add or change files with. */
class Folder {
  readonly touched = new Set<string>();
  #next = 0;

  constructor(
    readonly dir: string,
    readonly stock: string[],
  ) {}

  path(name: string): string {
    return join(this.dir, name);
  }

  files(): string[] {
    return readdirSync(this.dir)
      .map((n) => this.path(n))
      .sort();
  }

  /** Writes the next stock document to `name` (a new file, or new content for an existing one). */
  write(name: string): void {
    copyFileSync(this.stock[this.#next++]!, this.path(name));
    this.touched.add(this.path(name));
  }

  remove(name: string): void {
    unlinkSync(this.path(name));
    this.touched.add(this.path(name));
  }
}

/** Children still running (a failed or timed-out test leaves its watcher up otherwise). */
const children = new Set<ChildProcess>();

function runChild(dataDir: string, folder: Folder, run: Run): Promise<RunOutcome> {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      ['--import', 'tsx', CHILD, dataDir, folder.dir, KB_NAME, ...(run.hold ? [run.hold] : [])],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const outcome: RunOutcome = { killedAt: '', lines: [] };
    let watching = false;
    let idle = false;
    let held = '';
    let changed = !run.live;
    let syncedAfterChange = false;
    let stderr = '';
    let rest = '';
    const kill = (at: string): void => {
      outcome.killedAt = at;
      proc.kill('SIGKILL');
    };
    proc.stderr.on('data', (d) => (stderr += d));
    proc.stdout.on('data', (d: Buffer) => {
      const lines = (rest + d.toString()).split('\n');
      rest = lines.pop()!;
      for (const line of lines) {
        if (outcome.killedAt) return;
        outcome.lines.push(line);
        if (line === 'watching') watching = true;
        if (line === 'idle') idle = true;
        if (line.startsWith('held ')) held = line;
        if (line.startsWith('synced ') && changed) syncedAfterChange = true;
        // Caught up and watched (the catch-up scan and the watchers start together).
        const ready = watching && idle && (line === 'idle' || line === 'watching');
        if (!changed) {
          if (run.live!.when === 'idle' ? ready : held) {
            run.live!.change(folder);
            changed = true;
          }
          continue;
        }
        // Held: killed there, once a sync has recorded what changed meanwhile.
        if (held && (run.live?.when !== 'held' || syncedAfterChange)) kill(held);
        // Idle with every change made: killed at rest, or a sync that ended before reaching its hold.
        else if (ready) kill('idle');
      }
    });
    children.add(proc);
    proc.on('error', reject);
    proc.on('close', (code, signal) => {
      children.delete(proc);
      if (signal === 'SIGKILL') resolve(outcome);
      else reject(new Error(`child exited with ${code}: ${stderr.slice(-2000)}\n${outcome.lines.join('\n')}`));
    });
  });
}

interface DocState {
  id: number;
  hash: string;
  status: string;
  chunks: string[];
  facts: string[];
}

/** A triple as the scripted model states it, names as disambiguation merges them. */
const fact = (s: string, r: string, o: string): string =>
  `${syntheticCanonical(s)} | ${r.toUpperCase()} | ${syntheticCanonical(o)}`;

/** The file documents of the KB by path (a path twice is a duplicate: kept as a list). */
function documentStates(kb: KnowledgeBase): Map<string, DocState[]> {
  const factsOfChunk = new Map<number, string[]>();
  for (const t of kb.graph.iterateTriples())
    for (const id of t.chunkIds)
      factsOfChunk.set(id, [...(factsOfChunk.get(id) ?? []), fact(t.sourceName, t.relation, t.targetName)]);
  const states = new Map<string, DocState[]>();
  for (const d of kb.documents.iterateDocuments()) {
    if (d.containerId !== null) continue;
    const chunks = kb.documents.chunksOfDocument(d.id);
    const state: DocState = {
      id: d.id,
      hash: d.hash,
      status: d.status,
      chunks: chunks.map((c) => c.text),
      facts: [...new Set(chunks.flatMap((c) => factsOfChunk.get(c.id) ?? []))].sort(),
    };
    states.set(d.path, [...(states.get(d.path) ?? []), state]);
  }
  return states;
}

/** Opens the data directory as the next start would (no watcher) and checks the KB's consistency. */
async function inspect(dataDir: string) {
  const engine = await Engine.create({ paths: appPaths(repoRoot, dataDir, join(dataDir, 'models')) });
  try {
    const session = engine.kbs.get(KB_NAME);
    const file = engine.kbs.registry.get(KB_NAME).file;
    const health = databaseHealth(file);
    expect(health.integrity).toEqual(['ok']);
    expect(health.foreignKeys).toEqual([]);
    expect(expectNoOrphans(orphanReport(file))).toEqual({});
    const rdf = await rdfAgainstSqlite(engine, KB_NAME, session.kb);
    expect(rdf.view).toEqual(rdf.sqlite);
    const triplesWithoutChunk = [...session.kb.graph.iterateTriples()].filter((t) => t.chunkIds.length === 0);
    expect(triplesWithoutChunk).toEqual([]);
    return { docs: documentStates(session.kb), stats: session.kb.stats() };
  } finally {
    await engine.dispose();
  }
}

const normalised = (text: string): string => text.replace(/\s+/g, ' ').trim();

let dir: string;
let folder: Folder;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'polyhop-kill-watch-'));
  const initial = writeSyntheticCorpus(join(dir, 'folder'), 10, { seed: 25 });
  expect(initial).toHaveLength(10);
  folder = new Folder(join(dir, 'folder'), writeSyntheticCorpus(join(dir, 'stock'), 20, { seed: 2025, prefix: 's' }));
});
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('SIGKILL in the middle of a watched folder’s sync', () => {
  it('keeps every indexed document, and the restarted sync ends with the KB matching the folder', async () => {
    const doc = (n: number) => `doc-${String(n).padStart(5, '0')}.txt`;
    const runs: Run[] = [
      // The first sync of the folder, killed at rest once indexed.
      {},
      // Files added, changed and removed while it runs; killed once 2 documents of the job are ingested.
      {
        hold: 'ingest:embed:2',
        live: {
          when: 'idle',
          change: (f) => {
            for (const name of ['new-1.txt', 'new-2.txt', 'new-3.txt', 'new-4.txt', 'new-5.txt', doc(1), doc(2)])
              f.write(name);
            f.remove(doc(3));
            f.remove(doc(4));
          },
        },
      },
      // Restarted with nothing changed meanwhile: the sync resumes, killed in preprocess.
      { hold: 'preprocess:ingest/summarise' },
      // Changes while it was down, and more while its job is held in enrich: one to a file the job is indexing.
      {
        hold: 'enrich:mder/enrich',
        offline: (f) => {
          f.write('new-6.txt');
          f.write(doc(5));
          f.remove('new-5.txt');
        },
        live: {
          when: 'held',
          change: (f) => {
            f.write('new-7.txt');
            f.write('new-1.txt');
            f.remove(doc(6));
          },
        },
      },
      { hold: 'embed:embed' },
      // The last start, left to finish.
      {},
    ];
    const dataDir = join(dir, 'data');
    const killedAt: string[] = [];
    let before = new Map<string, DocState[]>();
    for (const run of runs) {
      folder.touched.clear();
      run.offline?.(folder);
      const outcome = await runChild(dataDir, folder, run);
      killedAt.push(outcome.killedAt);
      const after = await inspect(dataDir);
      // Every document indexed before the kill whose file was left alone is still there as it was.
      const kept = [...before]
        .filter(([path, states]) => !folder.touched.has(path) && states[0]!.status === 'indexed')
        .map(([path, states]) => [path, states]);
      expect(kept.map(([path]) => [path, after.docs.get(path as string)])).toEqual(kept);
      before = after.docs;
    }
    // Each kill landed where it was placed: none ran to the end of its sync first.
    expect(killedAt).toEqual(['idle', 'held ingest', 'held preprocess', 'held enrich', 'held embed', 'idle']);

    // The KB is the folder: one indexed document per file, of its current content, stating every fact the text states and no other.
    const files = folder.files();
    expect([...before.keys()].sort()).toEqual(files);
    const facts = new Set<string>();
    for (const file of files) {
      const [state, ...duplicates] = before.get(file)!;
      expect(duplicates).toEqual([]);
      const text = readFileSync(file, 'utf8');
      expect(state).toMatchObject({ status: 'indexed', hash: createHash('sha256').update(text).digest('hex') });
      expect(normalised(state!.chunks.join(' '))).toBe(normalised(text));
      for (const t of syntheticTriples(text)) facts.add(fact(t.subject, t.relation, t.object));
    }
    expect([...new Set([...before.values()].flatMap((s) => s[0]!.facts))].sort()).toEqual([...facts].sort());
  }, 600_000);
});

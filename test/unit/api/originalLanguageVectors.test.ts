import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer, KbInfo, KbSummary } from '../../../src-main/engine/api/contract.js';
import { Engine } from '../../../src-main/engine/api/Engine.js';
import { appPaths } from '../../../src-main/engine/api/paths.js';
import { migrate } from '../../../src-main/engine/kb/migrations/migrate.js';
import { BinaryIndex } from '../../../src-main/engine/kb/utils/BinaryIndex.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';
import { call, repoRoot, runJobToEnd } from '../../support/tempEngine.js';
import { ITACA_ROWS, itacaRules, QUESTION, WEAVING } from '../qa/support/itacaCorpus.js';

/**
 * A KB indexed before original-language chunk vectors existed (schema v4, as its indexing job left
 * it: English chunk vectors, one BM25 index of original and English text together). Opening it
 * migrates it; it reports the missing vectors; DaPT answers meanwhile from the English vectors and
 * says so; `kb:reembed` makes only the missing ones (non-English chunks: English ones are embedded
 * once) and DaPT then ranks the text as written by its own vectors.
 */
const embedder = new NgramEmbedder(512);
const ITALIAN = ITACA_ROWS.filter((r) => r.language === 'it').length;

async function writeV4Kb(file: string): Promise<void> {
  mkdirSync(join(file, '..'), { recursive: true });
  const db = new Database(file);
  migrate(db, file, 4);
  const meta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
  for (const [key, value] of Object.entries({
    format: 'polyhop-kb',
    name: 'itaca',
    description: '',
    baseIri: 'https://example.org/itaca/',
    createdAt: '2026-01-01T00:00:00.000Z',
  }))
    meta.run(key, value);
  meta.run('embedder', JSON.stringify({ identity: embedder.identity, dimension: embedder.dimension }));
  const english = ITACA_ROWS.map((r) => r.english ?? r.text);
  const vectors = await embedder.embed(english);
  for (const [i, row] of ITACA_ROWS.entries()) {
    const doc = db
      .prepare(
        `INSERT INTO documents (path, title, hash, mime, size, language, status, added_at) VALUES (?, ?, ?, 'text/plain', 1, ?, 'indexed', 'now') RETURNING id`,
      )
      .pluck()
      .get(`/itaca/${i}.txt`, `canto ${i}`, `h${i}`, row.language) as number;
    const id = db
      .prepare(
        'INSERT INTO chunks (document_id, ord, text, language, start_offset, end_offset, english_text) VALUES (?, 0, ?, ?, 0, ?, ?) RETURNING id',
      )
      .pluck()
      .get(doc, row.text, row.language, row.text.length, row.english) as number;
    const v = vectors[i]!;
    db.prepare('INSERT INTO vec_chunk (id, vector) VALUES (?, ?)').run(
      id,
      Buffer.from(v.buffer, v.byteOffset, v.byteLength),
    );
    const code = BinaryIndex.encode(v);
    db.prepare('INSERT INTO vcode_chunk (id, code) VALUES (?, ?)').run(
      id,
      Buffer.from(code.buffer, code.byteOffset, code.byteLength),
    );
    db.prepare('INSERT INTO fts_chunk (rowid, text) VALUES (?, ?)').run(
      id,
      row.english ? `${row.text}\n${row.english}` : row.text,
    );
  }
  db.close();
}

describe('a KB indexed before original-language vectors existed', () => {
  let engine: Engine;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'polyhop-old-kb-'));
    await writeV4Kb(join(dataDir, 'kbs', 'itaca', 'kb.sqlite'));
    engine = await Engine.create({
      paths: appPaths(repoRoot, dataDir, join(dataDir, 'models')),
      models: { embedder, llm: new ScriptedLlm(itacaRules()) },
    });
  });
  afterAll(async () => {
    await engine.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const dapt = async (): Promise<Answer> => {
    const job = await runJobToEnd(engine, 'qa:ask', { kb: 'itaca', question: QUESTION.it, strategy: 'dapt' });
    expect(job.error).toBeNull();
    return job.result as Answer;
  };
  const sourcePassages = (a: Answer): number[] =>
    a.trace
      .filter((s) => s.step.startsWith('solve'))
      .flatMap((s) => (s.detail as { attempts: { corpus: string; passages: { id: number }[] }[] }).attempts)
      .filter((x) => x.corpus === 'original')
      .flatMap((x) => x.passages.map((p) => p.id));

  it('is migrated on opening and reports the original-language vectors it lacks', async () => {
    const info = await call<KbInfo>(engine, 'kb:info', { kb: 'itaca' });
    expect(info.embedder).toMatchObject({ identity: embedder.identity });
    expect(info.missingVectors).toBe(ITALIAN);
    const [listed] = await call<KbSummary[]>(engine, 'kb:list', {});
    expect(listed).toMatchObject({ name: 'itaca', missingVectors: ITALIAN });
  });

  it('answers with DaPT meanwhile, ranking by the English vectors, and says so', async () => {
    const answer = await dapt();
    const plan = answer.trace.find((s) => s.step === 'plan')!.detail as { originalCorpus?: string };
    expect(plan.originalCorpus).toMatch(
      new RegExp(`^${ITALIAN} non-English chunks have no original-language vectors yet.*kb reembed`),
    );
    expect(sourcePassages(answer).length).toBeGreaterThan(0);
  });

  it('is filled by kb:reembed with one vector per non-English chunk, and DaPT then reads the text as written', async () => {
    const job = await runJobToEnd(engine, 'kb:reembed', { kb: 'itaca' });
    expect(job.error).toBeNull();
    expect(job.result).toEqual({ vectors: ITALIAN }); // the English chunks are not embedded twice, nor the rest again
    expect(engine.kbs.get('itaca').kb.stats().vectors).toMatchObject({
      chunk: ITACA_ROWS.length,
      chunk_original: ITALIAN,
    });
    expect((await call<KbInfo>(engine, 'kb:info', { kb: 'itaca' })).missingVectors).toBe(0);

    const answer = await dapt();
    expect(answer.trace.find((s) => s.step === 'plan')!.detail).not.toHaveProperty('originalCorpus');
    const weaving = engine.kbs.get('itaca').kb.textIndex.bm25('chunk_original', 'tesseva', 1)[0]!.id;
    expect(sourcePassages(answer)).toContain(weaving);
    expect(engine.kbs.get('itaca').kb.documents.getChunk(weaving)!.text).toBe(WEAVING.it);
  });
});

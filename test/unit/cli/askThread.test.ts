import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { polyhopInProcess } from '../../support/cliInProcess.js';
import { CORPUS_DIR, CORPUS_FILES } from '../../support/corpusScript.js';
import { call, runJobToEnd, tempEngine } from '../../support/tempEngine.js';
import { corpusLlm } from '../security/support/fullRun.js';
import { QaEmbedder, WIFE_OF_KING } from '../qa/support/qaScript.js';
import { rewriteRule } from '../qa/support/rewriteRule.js';

/** `polyhop ask` files every answer in a thread and prints its id; `--thread ID` continues it with a rewritten follow-up. */
let engine: Engine;
let dataDir: string;
let dispose: () => Promise<void>;
const polyhop = (...args: string[]) => polyhopInProcess(dataDir, args, { engine });

beforeAll(async () => {
  ({ engine, dataDir, dispose } = await tempEngine({ llm: corpusLlm([rewriteRule]), embedder: new QaEmbedder() }));
  await call(engine, 'kb:create', { name: 'odyssey' });
  await call(engine, 'docs:add', { kb: 'odyssey', paths: CORPUS_FILES.map((f) => join(CORPUS_DIR, f)) });
  expect((await runJobToEnd(engine, 'index:start', { kb: 'odyssey' })).status).toBe('done');
});
afterAll(() => dispose());

describe('polyhop ask in threads', () => {
  it('prints the new thread id, then continues it with an Italian follow-up asked as its standalone question', async () => {
    const first = await polyhop('ask', WIFE_OF_KING.it, '--kb', 'odyssey');
    expect(first).toMatchObject({ code: 0, err: '' });
    expect(first.out).toContain('Penelope');
    const id = /Thread (\d+), turn 1: continue with --thread \1/.exec(first.out)?.[1];
    expect(id).toBeDefined();

    const next = await polyhop('ask', 'e dove è nata?', '--kb', 'odyssey', '--thread', id!, '--strategy', 'vector');
    expect(next).toMatchObject({ code: 0, err: '' });
    expect(next.out).toContain('Asked as: Dove è nata Penelope?');
    expect(next.out).toContain(`Thread ${id}, turn 2`);
    const thread = await call<{ turns: { question: string }[] }>(engine, 'threads:get', {
      kb: 'odyssey',
      thread: Number(id),
    });
    expect(thread.turns.map((t) => t.question)).toEqual([WIFE_OF_KING.it, 'e dove è nata?']);
  });

  it('refuses a thread id that is not one', async () => {
    const bad = await polyhop('ask', 'e poi?', '--kb', 'odyssey', '--thread', 'abc');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/--thread takes a thread id/);
    const missing = await polyhop('ask', 'e poi?', '--kb', 'odyssey', '--thread', '999');
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/No thread 999/);
  });

  it('chats in one thread: a follow-up rewritten from it, /strategy switching, /quit ending', async () => {
    const input = Readable.from([
      `${WIFE_OF_KING.it}\n`,
      '/strategy vector\n',
      'e dove è nata?\n',
      '/quit\n',
      'never asked\n',
    ]);
    const chat = await polyhopInProcess(dataDir, ['chat', '--kb', 'odyssey'], { engine, input });
    expect(chat).toMatchObject({ code: 0, err: '' });
    expect(chat.out).toContain('Strategy: vector');
    expect(chat.out).toContain('Asked as: Dove è nata Penelope?');
    const id = Number(/Thread (\d+): continue with polyhop ask --thread \1/.exec(chat.out)?.[1]);
    const thread = await call<{ turns: { question: string; answer: { strategy: string } }[] }>(engine, 'threads:get', {
      kb: 'odyssey',
      thread: id,
    });
    expect(thread.turns.map((t) => [t.question, t.answer.strategy])).toEqual([
      [WIFE_OF_KING.it, 'dr'],
      ['e dove è nata?', 'vector'],
    ]);
  });
});

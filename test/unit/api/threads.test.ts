import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer, FollowUpRewrite, Thread, ThreadSummary } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { CORPUS_DIR, CORPUS_FILES } from '../../support/corpusScript.js';
import type { ScriptRule } from '../../support/ScriptedLlm.js';
import { call, runJobToEnd, tempEngine } from '../../support/tempEngine.js';
import { corpusLlm } from '../security/support/fullRun.js';
import { QaEmbedder, WIFE_OF_KING } from '../qa/support/qaScript.js';
import { rewriteRule } from '../qa/support/rewriteRule.js';

/** Threads through the Api: a follow-up rewritten, reviewed, edited, answered and filed; list, search, rename, export, delete. */
let engine: Engine;
let dispose: () => Promise<void>;
let rewriteReply: ScriptRule['reply'] = rewriteRule.reply;
const llm = corpusLlm([{ prompt: 'qa/rewrite', reply: (v, p) => rewriteReply(v, p) }]);

beforeAll(async () => {
  ({ engine, dispose } = await tempEngine({ llm, embedder: new QaEmbedder() }));
  await call(engine, 'kb:create', { name: 'odyssey' });
  await call(engine, 'docs:add', { kb: 'odyssey', paths: CORPUS_FILES.map((f) => join(CORPUS_DIR, f)) });
  expect((await runJobToEnd(engine, 'index:start', { kb: 'odyssey' })).status).toBe('done');
});
afterAll(() => dispose());

async function askIn(payload: Record<string, unknown>): Promise<Answer> {
  const job = await runJobToEnd(engine, 'qa:ask', { kb: 'odyssey', strategy: 'dr', ...payload });
  expect(job.error).toBeNull();
  return job.result as Answer;
}

describe('threads over the Api', () => {
  it('files a new thread, rewrites an Italian follow-up for review, and answers the edited question in Italian', async () => {
    const first = await askIn({ question: WIFE_OF_KING.it, thread: 'new' });
    expect(first.thread).toMatchObject({ position: 1, title: WIFE_OF_KING.it });
    expect(first.trace.map((s) => s.step)).not.toContain('rewrite');
    const thread = first.thread!.id;

    const rewrite = await call<FollowUpRewrite>(engine, 'qa:rewrite', {
      kb: 'odyssey',
      thread,
      question: 'e dove è nata?',
    });
    expect(rewrite).toMatchObject({ how: 'model', standalone: 'Dove è nata Penelope?', language: 'it' });
    expect(rewrite.step.llmCalls).toBe(1);

    const callsBefore = llm.callsOf('qa/rewrite').length;
    const edited = 'Dove è nata Penelope, la moglie di Ulisse?';
    const second = await askIn({ question: 'e dove è nata?', thread, standalone: edited, strategy: 'vector' });
    expect(llm.callsOf('qa/rewrite')).toHaveLength(callsBefore); // the reviewed rewrite is not asked again
    expect(second.question).toBe(edited);
    expect(second.answerLanguage).toBe('it');
    expect(second.trace[0]).toMatchObject({
      step: 'rewrite',
      llmCalls: 1,
      detail: { edited: true, suggested: 'Dove è nata Penelope?' },
    });
    expect(second.usage.promptTokens).toBe(second.trace.reduce((n, s) => n + s.promptTokens, 0));
    expect(second.thread).toMatchObject({ id: thread, position: 2 });

    const view = await call<Thread>(engine, 'threads:get', { kb: 'odyssey', thread });
    expect(view.turns.map((t) => [t.question, t.standaloneQuestion, t.answer?.strategy])).toEqual([
      [WIFE_OF_KING.it, WIFE_OF_KING.it, 'dr'],
      ['e dove è nata?', edited, 'vector'],
    ]);
  });

  it('rewrites in the job when no standalone question is given, and falls back when the model drops the referent', async () => {
    const first = await askIn({ question: WIFE_OF_KING.en, thread: 'new', strategy: 'vector' });
    const thread = first.thread!.id;
    const inJob = await askIn({ question: 'and where was she born?', thread, strategy: 'vector' });
    expect(inJob.question).toBe('Where was Penelope born?');
    expect(inJob.trace[0]).toMatchObject({ step: 'rewrite', llmCalls: 1 });
    rewriteReply = () => ({ standalone: 'Where was she born?' });
    try {
      const dropped = await askIn({ question: 'and where was she born?', thread, strategy: 'vector' });
      expect(dropped.question).toMatch(/^and where was she born\? \(Where was Penelope born\?/);
      expect(dropped.trace[0]!.detail).toMatchObject({ problem: expect.stringMatching(/referent/) });
    } finally {
      rewriteReply = rewriteRule.reply;
    }
  });

  it('lists, searches, renames, exports and deletes threads; an unknown thread fails the call', async () => {
    const all = await call<ThreadSummary[]>(engine, 'threads:list', { kb: 'odyssey' });
    expect(all.map((t) => t.turnCount)).toEqual([3, 2]);
    const italian = all[1]!;
    expect(
      (await call<ThreadSummary[]>(engine, 'threads:list', { kb: 'odyssey', search: 'PENELOPE, la moglie' })).map(
        (t) => t.id,
      ),
    ).toEqual([italian.id]);
    await call(engine, 'threads:rename', { kb: 'odyssey', thread: italian.id, title: 'La regina di Itaca' });
    const md = await call<{ fileName: string; text: string }>(engine, 'threads:export', {
      kb: 'odyssey',
      thread: italian.id,
    });
    expect(md.fileName).toBe('la-regina-di-itaca.md');
    expect(md.text).toMatch(/^# La regina di Itaca\n/);
    expect(md.text).toContain('## 2. e dove è nata?\n\nAsked as: Dove è nata Penelope, la moglie di Ulisse?');
    const json = await call<{ text: string }>(engine, 'threads:export', {
      kb: 'odyssey',
      thread: italian.id,
      format: 'json',
    });
    expect((JSON.parse(json.text) as Thread).turns).toHaveLength(2);
    expect(await call(engine, 'threads:delete', { kb: 'odyssey', thread: italian.id })).toEqual({ deleted: true });
    const gone = await engine.call('qa:ask', { kb: 'odyssey', question: 'e poi?', thread: italian.id });
    expect(gone).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await engine.call('qa:ask', { kb: 'odyssey', question: 'x', standalone: 'y' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_REQUEST' },
    });
    // A turn of a thread is an answer kept: `keep: false` (a search, as MCP's) cannot be filed in one.
    expect(await engine.call('qa:ask', { kb: 'odyssey', question: 'x', thread: 'new', keep: false })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_REQUEST' },
    });
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KnowledgeBase } from '../../../src-main/engine/kb/index.js';

let dir: string;
let kb: KnowledgeBase;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'polyhop-threads-'));
  kb = KnowledgeBase.open(join(dir, 'kb.sqlite'), { create: { name: 't', baseIri: 'https://example.org/t/' } });
});
afterEach(() => {
  kb.close();
  rmSync(dir, { recursive: true, force: true });
});

const turn = (threadId: number, question: string, standaloneQuestion = question) =>
  kb.threads.addTurn(threadId, {
    question,
    standaloneQuestion,
    historyId: kb.history.addHistory(
      standaloneQuestion,
      'dr',
      JSON.stringify({ text: `answer to ${standaloneQuestion}` }),
    ),
  });

describe('threads of a knowledge base', () => {
  it('keeps turns in order with their answers from the history, and lists the latest continued first', () => {
    const a = kb.threads.createThread('  Kings   of Ithaca ');
    const b = kb.threads.createThread('');
    expect(a.title).toBe('Kings of Ithaca');
    expect(b.title).toBe('Untitled');
    turn(a.id, 'Who was the king of Ithaca?');
    turn(b.id, 'Who was Priam?');
    const second = turn(a.id, 'and his wife?', 'Who was the wife of Odysseus?');
    expect(second).toMatchObject({ position: 2, strategy: 'dr', standaloneQuestion: 'Who was the wife of Odysseus?' });
    expect(kb.threads.turns(a.id).map((t) => [t.position, t.question, JSON.parse(t.answerJson!).text])).toEqual([
      [1, 'Who was the king of Ithaca?', 'answer to Who was the king of Ithaca?'],
      [2, 'and his wife?', 'answer to Who was the wife of Odysseus?'],
    ]);
    expect(kb.threads.listThreads().map((t) => [t.id, t.turns, t.lastQuestion])).toEqual([
      [a.id, 2, 'and his wife?'],
      [b.id, 1, 'Who was Priam?'],
    ]);
  });

  it('searches titles and questions as asked or standalone, case-insensitively', () => {
    const a = kb.threads.createThread('Kings');
    const b = kb.threads.createThread('Troy');
    turn(a.id, 'and his wife?', 'Who was the wife of Odysseus?');
    turn(b.id, 'Who was PRIAM?');
    expect(kb.threads.listThreads('odysseus').map((t) => t.id)).toEqual([a.id]);
    expect(kb.threads.listThreads('priam').map((t) => t.id)).toEqual([b.id]);
    expect(kb.threads.listThreads('troy').map((t) => t.id)).toEqual([b.id]);
    expect(kb.threads.listThreads('HIS WIFE').map((t) => t.id)).toEqual([a.id]);
    expect(kb.threads.listThreads('nobody')).toEqual([]);
  });

  it('renames and deletes; the history of a deleted thread stays', () => {
    const a = kb.threads.createThread('Kings');
    turn(a.id, 'Who was the king of Ithaca?');
    expect(kb.threads.renameThread(a.id, 'Ithaca').title).toBe('Ithaca');
    expect(kb.threads.deleteThread(a.id)).toBe(true);
    expect(kb.threads.deleteThread(a.id)).toBe(false);
    expect(() => kb.threads.thread(a.id)).toThrow(/No thread/);
    expect(() => kb.threads.addTurn(a.id, { question: 'q', standaloneQuestion: 'q', historyId: 1 })).toThrow(
      /No thread/,
    );
    expect(kb.history.listHistory().map((h) => h.question)).toEqual(['Who was the king of Ithaca?']);
  });

  it('keeps threads across reopening the file', () => {
    const a = kb.threads.createThread('Kings');
    turn(a.id, 'Who was the king of Ithaca?');
    kb.close();
    kb = KnowledgeBase.open(join(dir, 'kb.sqlite'));
    expect(kb.threads.listThreads().map((t) => [t.title, t.turns])).toEqual([['Kings', 1]]);
  });
});

import { describe, expect, it } from 'vitest';
import type { Answer, Thread } from '../../../src-main/engine/api/contract.js';
import { threadJson, threadMarkdown } from '../../../src-main/engine/qa/index.js';

const answer = (text: string, shortAnswer: string): Answer => ({
  question: 'q',
  questionLanguage: 'it',
  answerLanguage: 'it',
  strategy: 'dr',
  text,
  shortAnswer,
  retrievalOnly: false,
  evidence: [
    {
      kind: 'chunk',
      text: 'Penelope, la moglie di Ulisse',
      label: 'itaca.txt #0',
      score: 0.9,
      citations: [{ documentId: 1, documentTitle: 'Itaca', chunkId: 3, page: 2, startOffset: 10, endOffset: 40 }],
    },
  ],
  trace: [],
  usage: { llmCalls: 3, promptTokens: 120, completionTokens: 30, cacheHits: 0, ms: 55 },
});

const thread: Thread = {
  id: 4,
  title: 'La regina\ndi Itaca',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:01:00.000Z',
  turnCount: 2,
  lastQuestion: 'e dove è nata?',
  turns: [
    {
      id: 1,
      position: 1,
      question: 'Chi era la moglie del re di Itaca?',
      standaloneQuestion: 'Chi era la moglie del re di Itaca?',
      historyId: 1,
      askedAt: '2026-01-01T00:00:00.000Z',
      answer: answer('La moglie del re di Itaca era Penelope [1].', 'Penelope'),
      stale: null,
    },
    {
      id: 2,
      position: 2,
      question: 'e dove è nata?',
      standaloneQuestion: 'Dove è nata Penelope?',
      historyId: null,
      askedAt: '2026-01-01T00:01:00.000Z',
      answer: null,
      stale: null,
    },
  ],
};

describe('exporting a thread', () => {
  it('writes Markdown with each turn, the standalone question where it differs, the short answer, citations and cost', () => {
    const md = threadMarkdown(thread, 'odyssey');
    expect(md).toContain('# La regina di Itaca\n');
    expect(md).toContain(
      '## 1. Chi era la moglie del re di Itaca?\n\n**Penelope**\n\nLa moglie del re di Itaca era Penelope [1].',
    );
    expect(md).toContain('1. itaca.txt #0 — Itaca p. 2 [10–40]');
    expect(md).toContain('_dr · 3 LLM calls · 120+30 tokens · 55 ms');
    expect(md).toContain(
      '## 2. e dove è nata?\n\nAsked as: Dove è nata Penelope?\n\n(The answer is no longer in the history.)',
    );
    expect(md.match(/Asked as/g)).toHaveLength(1);
  });

  it('writes no bold line for an answer without a short answer, and "(no answer)" for a blank one', () => {
    const bare: Thread = { ...thread, turns: [{ ...thread.turns[0]!, answer: answer('  ', '') }] };
    const md = threadMarkdown(bare, 'odyssey');
    expect(md).toContain('## 1. Chi era la moglie del re di Itaca?\n\n(no answer)\n');
    expect(md).not.toContain('**');
  });

  it('writes JSON that reads back as the thread, with its KB', () => {
    expect(JSON.parse(threadJson(thread, 'odyssey'))).toEqual({ kb: 'odyssey', ...thread });
  });
});

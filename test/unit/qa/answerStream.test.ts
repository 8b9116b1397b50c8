import { describe, expect, it } from 'vitest';
import { AnswerStream } from '../../../src-main/engine/qa/AnswerStream.js';

describe('the answer stream', () => {
  it('settles on a different text for a listener that takes chunks only (no restart listener)', () => {
    const chunks: string[] = [];
    const stream = new AnswerStream({ onTextChunk: (t) => chunks.push(t) });
    stream.settle('first draft');
    stream.settle('the answer');
    expect(chunks).toEqual(['first draft', 'the answer']);
  });
});

import { describe, expect, it } from 'vitest';
import { RESTART_NOTE, StreamedAnswer } from '../../../src-main/cli/StreamedAnswer.js';

function terminal() {
  let printed = '';
  return { out: { write: (text: string) => (printed += text) }, printed: () => printed };
}

describe('polyhop ask on a terminal', () => {
  it('prints the answer as it streams, then only the short answer', () => {
    const t = terminal();
    const answer = new StreamedAnswer(t.out);
    for (const chunk of ['Penelope', ' [1] was the', ' wife of Odysseus [2].']) answer.onToken(chunk, false);
    expect(t.printed()).toBe('Penelope [1] was the wife of Odysseus [2].');
    answer.finish({ text: 'Penelope [1] was the wife of Odysseus [2].', shortAnswer: 'Penelope' });
    expect(t.printed()).toBe('Penelope [1] was the wife of Odysseus [2].\n\nShort answer: Penelope');
  });

  it('marks a restarted stream and prints the retry below it, the answer once after the mark', () => {
    const t = terminal();
    const answer = new StreamedAnswer(t.out);
    answer.onToken('Penelope was the wi', false);
    answer.onToken('', true);
    answer.onToken('Penelope [1].', false);
    answer.finish({ text: 'Penelope [1].', shortAnswer: 'Penelope' });
    expect(t.printed()).toBe(`Penelope was the wi\n\n${RESTART_NOTE}\n\nPenelope [1].\n\nShort answer: Penelope`);
  });

  it('prints the finished answer when it reads otherwise than what streamed (or nothing streamed)', () => {
    const t = terminal();
    const answer = new StreamedAnswer(t.out);
    answer.onToken('Penelope', false);
    answer.finish({ text: '(the model gave no answer.)' });
    expect(t.printed()).toBe(`Penelope\n\n${RESTART_NOTE}\n\n(the model gave no answer.)`);
    const quiet = terminal();
    new StreamedAnswer(quiet.out).finish({ text: 'Ranked evidence', shortAnswer: '' });
    expect(quiet.printed()).toBe('Ranked evidence');
  });
});

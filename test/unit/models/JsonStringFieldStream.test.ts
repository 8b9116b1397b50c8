import { describe, expect, it } from 'vitest';
import { JsonStringFieldStream } from '../../../src-main/engine/models/JsonStringFieldStream.js';
import { seededRandom } from '../../support/seededRandom.js';

/** Feeds `chunks` and returns each emitted piece. */
function stream(chunks: readonly string[], field = 'answer'): { pieces: string[]; reader: JsonStringFieldStream } {
  const pieces: string[] = [];
  const reader = new JsonStringFieldStream(field, (t) => pieces.push(t));
  for (const c of chunks) reader.write(c);
  return { pieces, reader };
}
const decoded = (chunks: readonly string[], field = 'answer'): string => stream(chunks, field).pieces.join('');

/** Every way to cut `raw` in two, one-character chunks, and seeded random chunkings. */
function chunkings(raw: string): string[][] {
  const out: string[][] = [[raw], [...raw.split('')]];
  for (let i = 1; i < raw.length; i++) out.push([raw.slice(0, i), raw.slice(i)]);
  const random = seededRandom(raw.length);
  for (let n = 0; n < 20; n++) {
    const chunks: string[] = [];
    for (let i = 0; i < raw.length;) {
      const size = 1 + Math.floor(random() * 6);
      chunks.push(raw.slice(i, i + size));
      i += size;
    }
    out.push(chunks);
  }
  return out;
}

const ANSWER = 'Penelope [1].\n"Wife" of \\ Odysseus\t/ é 😀 ✓ {not: [json]}, "short": "x"';
const REPLIES: Record<string, string> = {
  'answer first': JSON.stringify({ answer: ANSWER, short: 'Penelope' }),
  'answer last, after other fields': JSON.stringify({
    short: 'Pe"ne\\lope',
    n: 3,
    ok: true,
    none: null,
    tags: ['answer', '{'],
    nested: { answer: 'inner' },
    answer: ANSWER,
  }),
  'pretty-printed': JSON.stringify({ short: 'Penelope', answer: ANSWER }, null, 2),
  'every character escaped': `{"short":"\\u0050","answer":"${ANSWER.split('')
    .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .join('')}"}`,
  'escaped surrogate pairs': `{"answer":"a\\ud83d\\ude00b\\uD83C\\uDF0D"}`,
  'a key spelled with an escape': `{"\\u0061nswer":"${'yes'}"}`,
  'whitespace around the colon': `{ "short" : "no" ,\n  "answer"\n : \n"${'spaced'}" }`,
};

describe('JsonStringFieldStream', () => {
  it.each(Object.entries(REPLIES))(
    'decodes the field exactly as JSON.parse, however the text is cut (%s)',
    (_name, raw) => {
      const expected = (JSON.parse(raw) as { answer: string }).answer;
      for (const chunks of chunkings(raw)) {
        const { pieces, reader } = stream(chunks);
        expect(pieces.join(''), JSON.stringify(chunks)).toBe(expected);
        expect(reader.found && reader.done).toBe(true);
        // A surrogate pair is never emitted half.
        for (const piece of pieces)
          expect(piece, JSON.stringify(chunks)).toMatch(/^(?:[^\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/);
      }
    },
  );

  it('emits nothing for other fields, nested fields of the same name, or array items', () => {
    const raw = JSON.stringify({
      short: 'SHORT',
      nested: { answer: 'NESTED' },
      list: ['answer', 'ITEM'],
      answer: 'the answer',
    });
    for (const chunks of chunkings(raw)) expect(stream(chunks).pieces.join('')).toBe('the answer');
    expect(decoded([raw], 'short')).toBe('SHORT');
    expect(stream([JSON.stringify({ short: 'x', other: { answer: 'y' } })]).reader.found).toBe(false);
    expect(decoded(['["answer", "answer"]'])).toBe('');
  });

  it('streams as the text arrives, not when the field closes', () => {
    const { pieces } = stream(['{"answer": "Pen', 'el', 'ope', ' [1]"', ', "short": "Penelope"}']);
    expect(pieces).toEqual(['Pen', 'el', 'ope', ' [1]']);
  });

  it('holds an escape or a high surrogate cut at a chunk end until it is complete', () => {
    expect(stream(['{"answer":"a\\', 'nb\\u00', 'e9c\\ud83d', '\\ude00d"}']).pieces).toEqual(['a', '\nb', 'éc', '😀d']);
    expect(stream(['{"answer":"x😀y"}'.slice(0, 12), '{"answer":"x😀y"}'.slice(12)]).pieces).toEqual(['x', '😀y']);
  });

  it('keeps what a reply cut mid-field wrote, and every prefix streams a prefix of the answer', () => {
    const raw = REPLIES['answer last, after other fields']!;
    const expected = (JSON.parse(raw) as { answer: string }).answer;
    for (let cut = 0; cut <= raw.length; cut++) {
      const { pieces, reader } = stream([raw.slice(0, cut)]);
      const text = pieces.join('');
      expect(expected.startsWith(text), `cut at ${cut}: ${text}`).toBe(true);
      expect(reader.done).toBe(cut >= raw.length - 1);
    }
    expect(decoded(['{"answer": "Penelope was the wi'])).toBe('Penelope was the wi');
  });

  it('streams only the first occurrence and ignores text after the field closed', () => {
    expect(decoded(['{"answer":"one","answer":"two"}'])).toBe('one');
    expect(decoded(['{"answer":"one"} {"answer":"two"}'])).toBe('one');
  });
});

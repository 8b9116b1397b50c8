import { describe, expect, it } from 'vitest';
import { guardXmlEntities } from '../../../src-main/engine/kb/rdf/guardXmlEntities.js';

/**
 * The entity guard on its own, fed the way a file stream feeds it (chunks cut anywhere): what the
 * parser would expand is counted once, whatever the chunking and however the entities are named.
 */

async function guarded(chunks: readonly string[], maxExpansion: number): Promise<string> {
  async function* input(): AsyncGenerator<Buffer> {
    for (const c of chunks) yield Buffer.from(c);
  }
  const out: Buffer[] = [];
  try {
    for await (const b of guardXmlEntities(input(), { file: 'x.rdf', maxExpansion })) out.push(b);
  } catch (error) {
    return (error as Error).message;
  }
  expect(Buffer.concat(out).toString()).toBe(chunks.join(''));
  return 'passed';
}

const doc = (entities: string, body: string): string =>
  `<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [\n${entities}\n]>\n<rdf:RDF><rdf:Description><p>${body}</p></rdf:Description></rdf:RDF>\n`;

describe('XML entity guard', () => {
  it('refuses the classic billion laughs, its entities named lol to lol9', async () => {
    const levels = ['<!ENTITY lol "lol">'];
    for (let i = 1; i <= 9; i++) levels.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`);
    expect(await guarded([doc(levels.join('\n'), '&lol9;')], 1_000_000)).toMatch(/expand past 1000000 characters/);
  });

  it('counts references that arrive in a later chunk than the DOCTYPE', async () => {
    const text = doc('<!ENTITY big "0123456789">', '&big;&big;&big;');
    const cut = text.indexOf('<p>');
    expect(await guarded([text.slice(0, cut), text.slice(cut)], 25)).toMatch(/expand past 25/);
  });

  it('counts a reference that ends one chunk once, and one cut in two once', async () => {
    const text = doc('<!ENTITY big "0123456789">', '&big;&big;');
    const afterFirst = text.indexOf('&big;') + '&big;'.length;
    expect(await guarded([text.slice(0, afterFirst), text.slice(afterFirst)], 25)).toBe('passed');
    const inside = text.indexOf('&big;') + 2;
    expect(await guarded([text.slice(0, inside), text.slice(inside)], 25)).toBe('passed');
    expect(await guarded([text.slice(0, inside), text.slice(inside)], 15)).toMatch(/expand past 15/);
  });

  it('counts what references expand to: nested ones by their own expansion, predefined ones inside an entity as one character', async () => {
    // "&ten;&ten;" is 20 characters once expanded, not 20 plus the references' own text.
    const nested = doc('<!ENTITY ten "0123456789">\n<!ENTITY twenty "&ten;&ten;">', '&twenty;');
    expect(await guarded([nested], 25)).toBe('passed');
    expect(await guarded([nested], 15)).toMatch(/expand past 15/);
    const escaped = doc(`<!ENTITY lts "${'&lt;'.repeat(30)}">`, '&lts;');
    expect(await guarded([escaped], 40)).toBe('passed');
    expect(await guarded([escaped], 20)).toMatch(/expand past 20/);
  });
});

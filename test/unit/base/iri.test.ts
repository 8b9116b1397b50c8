import { NamedNode, namedNode, parse } from 'oxigraph';
import { describe, expect, it } from 'vitest';
import { MAX_SEGMENT_CHARS, decodeIriSegment, encodeIriSegment, mintIri } from '../../../src-main/engine/base/iri.js';
import { PolyhopError } from '../../../src-main/engine/base/errors.js';
import { rng, weirdName } from '../kb/rdfFixtures.js';

const BASE = 'https://polyhop.test/kb/x/';

describe('mintIri', () => {
  it('is readable for ordinary names', () => {
    expect(mintIri(BASE, ['entity', 'Penelope of Ithaca'])).toBe(`${BASE}entity/Penelope_of_Ithaca`);
    expect(mintIri(BASE, ['entity', 'Città di Ragusa'])).toBe(`${BASE}entity/Città_di_Ragusa`);
    expect(mintIri(BASE, ['entity', 'U.S.A.'])).toBe(`${BASE}entity/U.S.A%2E`);
    expect(mintIri(BASE, ['entity', 'a_b'])).toBe(`${BASE}entity/a%5Fb`);
    expect(mintIri(BASE, ['entity', ''])).toBe(`${BASE}entity/~`);
  });

  it('refuses a base that is not absolute or does not end in / or #', () => {
    for (const bad of ['relative/', 'https://x/y', 'https://x y/', '']) {
      expect(() => mintIri(bad, ['a'])).toThrow(PolyhopError);
    }
    expect(mintIri('urn:polyhop:kb:7/', ['a'])).toBe('urn:polyhop:kb:7/a');
  });

  it('yields valid, stable IRIs for random weird Unicode (oxigraph NamedNode + N-Triples parse)', () => {
    const next = rng(42);
    for (let i = 0; i < 3000; i++) {
      const name = weirdName(next, i % 200 === 0);
      const iri = mintIri(BASE, ['entity', name]);
      expect(iri).toBe(mintIri(BASE, ['entity', name]));
      expect(namedNode(iri)).toBeInstanceOf(NamedNode);
      const [q] = parse(`<${iri}> <${iri}> <${iri}> .\n`, { format: 'application/n-triples' });
      expect(q?.subject.value).toBe(iri);
      if (!iri.includes('~') || name === '') expect(decodeIriSegment(iri.slice(`${BASE}entity/`.length))).toBe(name);
    }
  });

  it('is injective: random names, near-duplicates, long names, and segment boundaries never collide', () => {
    const next = rng(7);
    const names = new Set<string>();
    for (let i = 0; i < 4000; i++) names.add(weirdName(next, i % 100 === 0));
    const long = 'x'.repeat(10_000);
    const tricky = [
      '',
      ' ',
      '_',
      '%20',
      '%5F',
      '~',
      '.',
      '..',
      'a.',
      'a%2E',
      '\ud800',
      '\ufffd',
      '\udc00\ud800',
      '\ud800\udc00',
      'é',
      'e\u0301',
      'a/b',
      'a%2Fb',
      long,
      `${long}a`,
      `${long}b`,
      `${long.slice(0, 200)}~${'0'.repeat(64)}`,
    ];
    for (const t of tricky) names.add(t);
    const iris = new Map<string, string>();
    for (const name of names) {
      const iri = mintIri(BASE, ['entity', name]);
      const clash = iris.get(iri);
      if (clash !== undefined) expect.fail(`collision: ${JSON.stringify(clash)} and ${JSON.stringify(name)} → ${iri}`);
      iris.set(iri, name);
    }
    // Segment lists: joining cannot make ['a/b'] meet ['a', 'b'].
    expect(mintIri(BASE, ['a/b'])).not.toBe(mintIri(BASE, ['a', 'b']));
    expect(mintIri(BASE, ['triple', 'a', 'r', 'b/c'])).not.toBe(mintIri(BASE, ['triple', 'a', 'r/b', 'c']));
  });

  it('keeps very long names readable and bounded', () => {
    const name = `Long name ${'é'.repeat(5000)}😀${'ß'.repeat(5000)}`;
    const segment = encodeIriSegment(name);
    expect(segment.length).toBeLessThanOrEqual(MAX_SEGMENT_CHARS);
    expect(segment.startsWith('Long_name_éé')).toBe(true);
    expect(segment).toMatch(/~[0-9a-f]{64}$/);
    expect(decodeIriSegment(segment)).toBeNull();
    // Cut never splits an escape or a surrogate pair.
    for (let k = 0; k < 50; k++) namedNode(mintIri(BASE, [`${'a'.repeat(k)}${'😀%'.repeat(400)}`]));
  });
});

import { Parser } from 'n3';
import { describe, expect, it } from 'vitest';
import { ntTerm } from '../../../src-main/engine/kb/rdf/RdfSerializer.js';

const blank = (value: string) => ntTerm({ termType: 'BlankNode', value });

describe('RdfSerializer blank node labels', () => {
  it('two different blank nodes never share a label ("x4121" is the hex form of "A!")', () => {
    expect(blank('x4121')).not.toBe(blank('A!'));
  });

  it('labels stay one-to-one and valid N-Triples over labels that pass through and labels that are encoded', () => {
    const labels = ['b0', 'x', 'x4121', 'A!', 'x41', 'A', '', 'é', 'a.b', 'a.', '-a', 'x-1', 'x78', 'xx', 'c1b2f3'];
    const written = labels.map(blank);
    expect(new Set(written).size).toBe(labels.length);
    const doc = written.map((b) => `${b} <http://example.org/p> "v" .`).join('\n');
    expect(new Parser({ format: 'N-Triples' }).parse(doc)).toHaveLength(labels.length);
  });
});

import { describe, expect, it } from 'vitest';
import { requestSchemas } from '../../../src-main/engine/api/contract.js';
import { isAbsoluteIri, isKbName } from '../../../src-main/engine/kb/kbNaming.js';

// The one rule the contract, the registry and the renderer's forms check (kb/kbNaming.ts).
describe('KB names and absolute IRIs', () => {
  it('a KB name: letters and digits of any script, then also space, "_", "-", "."; at most 64', () => {
    const accepted = ['a', 'Ünïcode 名前 ١٢', 'a b_c.d-e', 'x'.repeat(64), '9', '٣'];
    const refused = ['x'.repeat(65), '', ' a', '-a', '_a', '.a', 'a/b', 'a!', 'a\nb', 'a\tb', 'a🙂'];
    const name = requestSchemas['kb:create'].shape.name;
    for (const n of accepted) expect([n, isKbName(n), name.safeParse(n).success]).toEqual([n, true, true]);
    for (const n of refused) expect([n, isKbName(n), name.safeParse(n).success]).toEqual([n, false, false]);
  });

  it('an absolute IRI: any scheme URL parses, at most 2,000 characters, trimmed on the wire', () => {
    const long = `https://example.org/${'p'.repeat(2000 - 20)}`;
    const accepted = ['https://example.org/kb#', 'urn:isbn:0451450523', 'file:///tmp/a.ttl', 'mailto:a@b.c', long];
    const refused = [`${long}x`, 'example.org/kb', '/relative/path', '', 'http://', 'not an iri', 'https://a b.org/'];
    for (const iri of accepted) expect([iri, isAbsoluteIri(iri)]).toEqual([iri, true]);
    for (const iri of refused) expect([iri, isAbsoluteIri(iri)]).toEqual([iri, false]);
    for (const method of ['kb:create', 'rdf:import'] as const) {
      const baseIri = requestSchemas[method].shape.baseIri;
      expect(baseIri.safeParse(' https://example.org/kb# ')).toEqual({
        success: true,
        data: 'https://example.org/kb#',
      });
      expect(refused.map((iri) => baseIri.safeParse(iri).success)).toEqual(refused.map(() => false));
    }
  });
});

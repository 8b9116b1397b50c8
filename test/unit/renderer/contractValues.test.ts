import { describe, expect, it } from 'vitest';
import { RDF_FORMATS, requestSchemas, STRATEGIES } from '../../../src-main/engine/api/contract.js';
import * as renderer from '../../../src-renderer/api/contractValues.js';

// tsc holds the renderer's lists to the contract's unions; this holds what it cannot see: the
// order the screens show and the two rules the renderer checks before it calls.
describe("the renderer's copies of contract values", () => {
  it('list the strategies and RDF formats in the contract’s order', () => {
    expect(renderer.STRATEGIES).toEqual([...STRATEGIES]);
    expect(renderer.RDF_FORMATS).toEqual([...RDF_FORMATS]);
  });

  it('accept a KB name exactly when kb:create does', () => {
    const schema = requestSchemas['kb:create'].shape.name;
    const names = ['a', 'Ünïcode 名前 ١٢', 'a b_c.d-e', 'x'.repeat(64), 'x'.repeat(65), '', ' a', '-a', '_a', '.a'];
    const more = ['a/b', 'a!', 'a\nb', 'a\tb', 'a🙂', '9', '٣'];
    const verdicts = [...names, ...more].map((name) => [name, renderer.isKbName(name)]);
    expect(verdicts).toEqual([...names, ...more].map((name) => [name, schema.safeParse(name).success]));
    expect(new Set(verdicts.map(([, ok]) => ok))).toEqual(new Set([true, false]));
  });

  it('accept a base IRI exactly when kb:create and rdf:import do', () => {
    const schemas = [requestSchemas['kb:create'].shape.baseIri, requestSchemas['rdf:import'].shape.baseIri];
    const long = `https://example.org/${'p'.repeat(2000 - 20)}`;
    const iris = ['https://example.org/kb#', 'urn:isbn:0451450523', 'file:///tmp/a.ttl', 'mailto:a@b.c', long];
    const more = [`${long}x`, 'example.org/kb', '/relative/path', '', 'http://', 'not an iri', 'https://a b.org/'];
    for (const schema of schemas) {
      const verdicts = [...iris, ...more].map((iri) => [iri, renderer.isBaseIri(iri)]);
      expect(verdicts).toEqual([...iris, ...more].map((iri) => [iri, schema.safeParse(iri).success]));
    }
    expect(more.map(renderer.isBaseIri)).toEqual(more.map(() => false));
    expect(iris.map(renderer.isBaseIri)).toEqual(iris.map(() => true));
  });
});

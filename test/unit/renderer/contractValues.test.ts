import { describe, expect, it } from 'vitest';
import { RDF_FORMATS, STRATEGIES } from '../../../src-main/engine/api/contract.js';
import * as renderer from '../../../src-renderer/api/contractValues.js';

// tsc holds the renderer's lists to the contract's unions; this holds what it cannot see: the
// order the screens show. (The KB name and IRI rules the renderer checks are the engine's own: kb/kbNaming.)
describe("the renderer's copies of contract values", () => {
  it('list the strategies and RDF formats in the contract’s order', () => {
    expect(renderer.STRATEGIES).toEqual([...STRATEGIES]);
    expect(renderer.RDF_FORMATS).toEqual([...RDF_FORMATS]);
  });
});

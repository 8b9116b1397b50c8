import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BinaryIndex } from '../../../src-main/engine/kb/utils/BinaryIndex.js';
import { seededRandom } from '../../support/seededRandom.js';
import { repoRoot } from '../../support/tempEngine.js';

describe('the Hamming scan (WebAssembly)', () => {
  it('is the committed build of hammingScan.wat', async () => {
    // @ts-expect-error: a plain-JS build script without declarations
    const { WASM_SOURCES, assemble } = (await import('../../../bin/buildWasm.js')) as {
      WASM_SOURCES: { wat: string; out: string; name: string }[];
      assemble: (source: { wat: string; out: string; name: string }) => Promise<string>;
    };
    for (const source of WASM_SOURCES) expect(readFileSync(join(repoRoot, source.out), 'utf8'), `${source.out}: run npm run build:wasm`).toBe(await assemble(source));
  });

  it.each([64, 130, 256, 384])('finds exactly the nearest codes by Hamming distance (%i bits), after deletes and overwrites', (dimension) => {
    const random = seededRandom(dimension);
    const words = Math.ceil(dimension / 32);
    const code = (): Uint32Array => {
      const c = Uint32Array.from({ length: words }, () => Math.floor(random() * 2 ** 32));
      if (dimension % 32) c[words - 1]! &= 2 ** (dimension % 32) - 1; // unused bits stay 0, as encode leaves them
      return c;
    };
    const codes = new Map<number, Uint32Array>();
    const index = new BinaryIndex(dimension, 0);
    const bulk = Array.from({ length: 3000 }, (_, i) => [i + 1, code()] as const);
    index.append(
      bulk.map(([id]) => id),
      new Uint8Array(Uint32Array.from(bulk.flatMap(([, c]) => [...c])).buffer),
    );
    for (const [id, c] of bulk) codes.set(id, c);
    for (let i = 0; i < 300; i++) {
      const id = 1 + Math.floor(random() * 3500);
      if (i % 3 === 0) {
        index.delete(id);
        codes.delete(id);
      } else {
        const c = code();
        index.set(id, new Uint8Array(c.buffer));
        codes.set(id, c);
      }
    }
    expect(index.size).toBe(codes.size);
    const popcount = (x: number): number => x.toString(2).replace(/0/g, '').length;
    for (let q = 0; q < 5; q++) {
      const query = code();
      const distance = (id: number): number => codes.get(id)!.reduce((d, w, i) => d + popcount((w ^ query[i]!) >>> 0), 0);
      const truth = [...codes.keys()].map(distance).sort((a, b) => a - b).slice(0, 50);
      const found = index.candidates(query, 50);
      expect(new Set(found).size).toBe(50);
      expect(found.map(distance).sort((a, b) => a - b)).toEqual(truth);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { poolWindowVectors, tokenWindows } from '../../../src-main/engine/models/embedders/pooledWindows.js';

describe('pooled embedding windows', () => {
  it('cuts tokens into consecutive windows, the last one shorter, and an empty text into one empty window', () => {
    expect(tokenWindows([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(tokenWindows([1, 2], 2)).toEqual([[1, 2]]);
    expect(tokenWindows([], 3)).toEqual([[]]);
    expect(() => tokenWindows([1], 0)).toThrow(RangeError);
  });

  it('averages window vectors weighted by their tokens, normalised when asked', () => {
    const a = Float32Array.from([1, 0]);
    const b = Float32Array.from([0, 1]);
    expect([...poolWindowVectors([a, b], [3, 1], false)]).toEqual([0.75, 0.25]);
    const unit = poolWindowVectors([a, b], [3, 1], true);
    expect(unit[0]! / unit[1]!).toBeCloseTo(3, 5);
    expect(Math.hypot(unit[0]!, unit[1]!)).toBeCloseTo(1, 6);
    expect(poolWindowVectors([a], [7], true)).toBe(a);
    expect(() => poolWindowVectors([a, b], [1], true)).toThrow(RangeError);
  });
});

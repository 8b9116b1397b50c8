import { describe, expect, it } from 'vitest';
import { hashParts } from '../../src-main/engine/base/hash.js';
import { mapConcurrent } from '../../src-main/engine/base/concurrency.js';
import { PolyhopError, toErrorData, CancelledError } from '../../src-main/engine/base/errors.js';

describe('base', () => {
  it('hashParts does not collide on concatenation', () => {
    expect(hashParts(['ab', 'c'])).not.toBe(hashParts(['a', 'bc']));
  });
  it('mapConcurrent keeps order and bounds concurrency', async () => {
    let inFlight = 0;
    let peak = 0;
    const out = await mapConcurrent([5, 1, 3, 2], 2, async (n) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, n));
      inFlight--;
      return n * 2;
    });
    expect(out).toEqual([10, 2, 6, 4]);
    expect(peak).toBe(2);
  });
  it('errors cross boundaries as data', () => {
    expect(toErrorData(new PolyhopError('NOT_FOUND', 'no kb x'))).toEqual({
      code: 'NOT_FOUND',
      message: 'no kb x',
      details: {},
    });
    expect(toErrorData(new CancelledError()).code).toBe('CANCELLED');
    expect(toErrorData(new TypeError('boom')).code).toBe('INTERNAL');
  });
});

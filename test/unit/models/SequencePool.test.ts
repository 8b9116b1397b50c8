import { describe, expect, it } from 'vitest';
import { CancelledError } from '../../../src-main/engine/base/errors.js';
import { SequencePool } from '../../../src-main/engine/models/SequencePool.js';

describe('SequencePool', () => {
  it('hands each item to one caller and queues the rest in order', async () => {
    const pool = new SequencePool(['a', 'b']);
    const x = await pool.acquire();
    const y = await pool.acquire();
    expect(new Set([x, y])).toEqual(new Set(['a', 'b']));
    const order: string[] = [];
    const w1 = pool.acquire().then((v) => order.push(`w1:${v}`));
    const w2 = pool.acquire().then((v) => order.push(`w2:${v}`));
    pool.release(x);
    pool.release(y);
    await Promise.all([w1, w2]);
    expect(order).toEqual([`w1:${x}`, `w2:${y}`]);
    expect(pool.available).toBe(0);
  });

  it('aborts a waiting caller without losing the item', async () => {
    const pool = new SequencePool([1]);
    const held = await pool.acquire();
    const ac = new AbortController();
    const waiting = pool.acquire(ac.signal);
    ac.abort();
    await expect(waiting).rejects.toBeInstanceOf(CancelledError);
    pool.release(held);
    expect(pool.available).toBe(1);
  });
});

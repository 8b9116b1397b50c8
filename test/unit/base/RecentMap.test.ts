import { describe, expect, it } from 'vitest';
import { RecentMap } from '../../../src-main/engine/base/RecentMap.js';

describe('RecentMap', () => {
  it('keeps the most recently used entries up to its capacity, a hit counting as a use', () => {
    const map = new RecentMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    expect(map.get('a')).toBe(1);
    map.set('c', 3);
    expect(map.size).toBe(2);
    expect(map.get('b')).toBeUndefined();
    expect(map.get('a')).toBe(1);
    expect(map.get('c')).toBe(3);
    map.set('c', 4);
    map.set('d', 5);
    expect([map.get('a'), map.get('c'), map.get('d')]).toEqual([undefined, 4, 5]);
    expect(map.delete('c')).toBe(true);
    expect(map.size).toBe(1);
    expect(() => new RecentMap(0)).toThrow(RangeError);
  });
});

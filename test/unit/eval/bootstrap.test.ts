import { describe, expect, it } from 'vitest';
import { bootstrapMean, pairedBootstrap } from '../../../src-main/engine/eval/stats/bootstrap.js';
import { Prng } from '../../../src-main/engine/eval/stats/Prng.js';

/** n scores with exactly `ones` ones, in a seeded random order. */
function bernoulli(n: number, ones: number, seed: number): number[] {
  return new Prng(seed).shuffle(Array.from({ length: n }, (_, i) => (i < ones ? 1 : 0)));
}

describe('seeded PRNG', () => {
  it('repeats for a seed, differs across seeds, and is uniform enough', () => {
    const a = Array.from(
      { length: 5 },
      (
        (p) => () =>
          p.next()
      )(new Prng(42)),
    );
    const b = Array.from(
      { length: 5 },
      (
        (p) => () =>
          p.next()
      )(new Prng(42)),
    );
    const c = Array.from(
      { length: 5 },
      (
        (p) => () =>
          p.next()
      )(new Prng(43)),
    );
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    const p = new Prng(7);
    const counts = new Array<number>(10).fill(0);
    for (let i = 0; i < 100_000; i++) counts[p.nextInt(10)]! += 1;
    for (const k of counts) expect(Math.abs(k - 10_000)).toBeLessThan(500); // ±5 sd of a binomial(1e5, 0.1)
  });
});

describe('bootstrap mean and standard error', () => {
  it('Bernoulli 0/1, n = 400, p = 0.3: SE ≈ sqrt(p(1 − p)/n) = 0.02291', () => {
    const scores = bernoulli(400, 120, 1);
    const est = bootstrapMean(scores, { samples: 10_000, seed: 1 });
    expect(est.n).toBe(400);
    expect(est.mean).toBe(0.3);
    expect(Math.abs(est.bootstrapMean - 0.3)).toBeLessThan(0.001); // SE / sqrt(k) ≈ 0.0002
    const expected = Math.sqrt((0.3 * 0.7) / 400);
    expect(Math.abs(est.se - expected) / expected).toBeLessThan(0.03); // relative sd of an SE estimate ≈ 1/sqrt(2k) = 0.7%
  });

  it('continuous scores: SE ≈ population sd / sqrt(n)', () => {
    const scores = Array.from({ length: 100 }, (_, i) => i / 99);
    const mean = 0.5;
    const sd = Math.sqrt(scores.reduce((s, x) => s + (x - mean) ** 2, 0) / scores.length);
    const est = bootstrapMean(scores, { seed: 3 });
    expect(est.mean).toBeCloseTo(0.5, 12);
    expect(Math.abs(est.se - sd / 10) / (sd / 10)).toBeLessThan(0.03);
  });

  it('is reproducible with a seed; a constant series has SE 0; an empty one is NaN', () => {
    const scores = bernoulli(50, 20, 9);
    expect(bootstrapMean(scores, { seed: 5 })).toEqual(bootstrapMean(scores, { seed: 5 }));
    expect(bootstrapMean(scores, { seed: 5 }).se).not.toBe(bootstrapMean(scores, { seed: 6 }).se);
    expect(bootstrapMean([1, 1, 1], { samples: 100 })).toEqual({ n: 3, mean: 1, bootstrapMean: 1, se: 0 });
    expect(bootstrapMean([]).mean).toBeNaN();
  });
});

describe('paired bootstrap', () => {
  it('a constant improvement is certain: SE 0, p 0; no difference: p 1', () => {
    const b = bernoulli(100, 40, 2).map((x) => x * 0.5);
    const a = b.map((x) => x + 0.1);
    const d = pairedBootstrap(a, b, { samples: 2000 });
    expect(d.meanDiff).toBeCloseTo(0.1, 12);
    expect(d.se).toBeCloseTo(0, 12);
    expect(d.p).toBe(0);
    expect(pairedBootstrap(b, b, { samples: 2000 }).p).toBe(1);
  });

  it('SE of the difference ≈ sd(a − b)/sqrt(n); p reflects the effect size', () => {
    // 400 questions: a right on 60 more than b, wrong on 20 that b got (net +40 → diff 0.1).
    const n = 400;
    const b = bernoulli(n, 200, 4);
    const a = [...b];
    let flipUp = 60;
    let flipDown = 20;
    for (let i = 0; i < n; i++) {
      if (b[i] === 0 && flipUp > 0) {
        a[i] = 1;
        flipUp--;
      } else if (b[i] === 1 && flipDown > 0) {
        a[i] = 0;
        flipDown--;
      }
    }
    const d = pairedBootstrap(a, b, { seed: 11 });
    expect(d.meanDiff).toBeCloseTo(0.1, 12);
    const diffs = a.map((x, i) => x - (b[i] as number));
    const sd = Math.sqrt(diffs.reduce((s, x) => s + (x - 0.1) ** 2, 0) / n);
    expect(Math.abs(d.se - sd / Math.sqrt(n)) / (sd / Math.sqrt(n))).toBeLessThan(0.03);
    expect(d.p).toBeLessThan(0.001); // 0.1 / 0.0212 ≈ 4.7 SE from 0
    expect(d.ci95[0]).toBeGreaterThan(0.05);
    expect(d.ci95[1]).toBeLessThan(0.15);
    expect(() => pairedBootstrap([1], [1, 2])).toThrow(/equal lengths/);
  });
});

import { describe, expect, it } from 'vitest';
import { chainPairs, planMerges } from '../../../src-main/engine/mder/planMerges.js';
import { idPair, type DisambiguationEntity } from '../../../src-main/engine/mder/disambiguationTypes.js';

// The rules that decide which entities merge and under which name, one at a time (written against
// the mutants that survived `npm run mutation -- mder/planMerges.ts`: test/mutation/survivors.md).

const e = (id: number, name: string, more: Partial<DisambiguationEntity> = {}): DisambiguationEntity => ({
  id,
  name,
  type: 'Person',
  ...more,
});
const same = (a: DisambiguationEntity, b: DisambiguationEntity, canonical = a.name) => ({ a, b, canonical });

describe('planMerges: the canonical name', () => {
  it('on a tie in votes, takes the name its members use most, counting their facts', () => {
    // One vote each; "Odysseus" is held by a member with 5 facts, "Ulysses" by one with 1.
    const groups = planMerges([
      same(e(1, 'Ulysses', { facts: 1 }), e(2, 'Odysseus', { facts: 5 }), 'Ulysses'),
      same(e(2, 'Odysseus', { facts: 5 }), e(3, 'Ulisse', { facts: 0 }), 'Odysseus'),
      same(e(1, 'Ulysses', { facts: 1 }), e(3, 'Ulisse', { facts: 0 }), 'Ulisse'),
    ]);
    expect(groups).toEqual([{ keepId: 2, mergeIds: [1, 3], canonicalName: 'Odysseus' }]);
  });

  it('counts a member that took the name over in an earlier merge (an alias) as using it', () => {
    const groups = planMerges([
      same(e(1, 'Ulysses'), e(2, 'Odysseus', { aliases: ['Ulixes', 'Ulisse'] }), 'Ulisse'),
      same(e(1, 'Ulysses'), e(3, 'Ulises'), 'Ulysses'),
      same(e(2, 'Odysseus', { aliases: ['Ulixes', 'Ulisse'] }), e(3, 'Ulises'), 'Ulises'),
    ]);
    // Votes tie 1–1–1; "Ulisse" is used by member 2 (alias), the others by one member each with no
    // facts: 1 + 0 each too, so the tie falls to the shorter name, then the alphabet: Ulises < Ulisse.
    expect(groups[0]!.canonicalName).toBe('Ulises');
    const withFacts = planMerges([
      same(e(1, 'Ulysses'), e(2, 'Odysseus', { aliases: ['Ulisse'], facts: 2 }), 'Ulisse'),
      same(e(1, 'Ulysses'), e(3, 'Ulises'), 'Ulysses'),
      same(e(2, 'Odysseus', { aliases: ['Ulisse'], facts: 2 }), e(3, 'Ulises'), 'Ulises'),
    ]);
    // Now the alias holder's 2 facts decide; nobody is named "Ulisse", so the oldest member is kept.
    expect(withFacts).toEqual([{ keepId: 1, mergeIds: [2, 3], canonicalName: 'Ulisse' }]);
  });

  it('then the shorter name, then the alphabet; votes are counted per name key, keeping the first spelling', () => {
    const short = planMerges([same(e(1, 'Odysseus'), e(2, 'Odysseus of Ithaca'), 'Odysseus of Ithaca')]);
    expect(short[0]!.canonicalName).toBe('Odysseus of Ithaca');
    const tie = planMerges([
      same(e(1, 'Zeta'), e(2, 'Beta'), 'Zeta'),
      same(e(1, 'Zeta'), e(3, 'Alfa'), 'Beta'),
      same(e(2, 'Beta'), e(3, 'Alfa'), 'Alfa'),
    ]);
    // Equal votes, uses and lengths: alphabetical; the member named so is kept.
    expect(tie).toEqual([{ keepId: 3, mergeIds: [1, 2], canonicalName: 'Alfa' }]);
    const lengths = planMerges([
      same(e(1, 'Telemachus'), e(2, 'Telemaco'), 'Telemachus'),
      same(e(1, 'Telemachus'), e(3, 'Telémaque'), 'Telemaco'),
      same(e(2, 'Telemaco'), e(3, 'Telémaque'), 'Telémaque'),
    ]);
    expect(lengths[0]!.canonicalName).toBe('Telemaco');
    // "ODYSSEUS" and "Odysseus" are one name key: two votes beat one, written as first proposed.
    const keyed = planMerges([
      same(e(1, 'Ulysses'), e(2, 'Odysseus'), 'ODYSSEUS'),
      same(e(1, 'Ulysses'), e(3, 'Ulixes'), 'Ulysses'),
      same(e(2, 'Odysseus'), e(3, 'Ulixes'), 'Odysseus'),
    ]);
    expect(keyed).toEqual([{ keepId: 2, mergeIds: [1, 3], canonicalName: 'ODYSSEUS' }]);
  });

  it('counts only the votes of pairs inside the group', () => {
    const groups = planMerges([
      same(e(1, 'Ulysses'), e(2, 'Odysseus'), 'Odysseus'),
      // Another group's votes for "Ulysses" must not decide the first group's name.
      same(e(3, 'Ulysses II'), e(4, 'Ulysses the Younger'), 'Ulysses'),
      same(e(3, 'Ulysses II'), e(5, 'Young Ulysses'), 'Ulysses'),
      same(e(4, 'Ulysses the Younger'), e(5, 'Young Ulysses'), 'Ulysses'),
    ]);
    expect(groups).toEqual([
      { keepId: 2, mergeIds: [1], canonicalName: 'Odysseus' },
      { keepId: 3, mergeIds: [4, 5], canonicalName: 'Ulysses' },
    ]);
  });

  it('lists groups by their smallest id, each with its ids in order', () => {
    const groups = planMerges([
      same(e(9, 'Sparta'), e(4, 'Lacedaemon'), 'Sparta'),
      same(e(7, 'Pylos'), e(2, 'Navarino'), 'Pylos'),
    ]);
    expect(groups).toEqual([
      { keepId: 7, mergeIds: [2], canonicalName: 'Pylos' },
      { keepId: 9, mergeIds: [4], canonicalName: 'Sparta' },
    ]);
  });

  it('keeps the oldest member when no member holds the chosen name, and lists the others in id order', () => {
    const groups = planMerges([
      same(e(9, 'Sparta'), e(4, 'Lacedaemon'), 'Lakedaimon'),
      same(e(9, 'Sparta'), e(6, 'Sparti'), 'Lakedaimon'),
      same(e(4, 'Lacedaemon'), e(6, 'Sparti'), 'Lakedaimon'),
    ]);
    expect(groups).toEqual([{ keepId: 4, mergeIds: [6, 9], canonicalName: 'Lakedaimon' }]);
  });

  it('a pair left out of a group (no clique) does not vote for its name', () => {
    // 2~3 could not join {1, 2} (no verdict on 1~3); its "Kennedy" must not tie with the group's own vote.
    const groups = planMerges([
      same(e(1, 'Jack'), e(2, 'Kennedy'), 'John F. Kennedy'),
      same(e(2, 'Kennedy'), e(3, 'Robert F. Kennedy'), 'Kennedy'),
    ]);
    expect(groups).toEqual([{ keepId: 1, mergeIds: [2], canonicalName: 'John F. Kennedy' }]);
  });

  it('a name more members use wins a tie in votes', () => {
    const ulixes = e(2, 'Ulixes', { aliases: ['Odysseus'] });
    const groups = planMerges([
      same(e(1, 'Odysseus'), ulixes, 'Odysseus'),
      same(e(1, 'Odysseus'), e(3, 'Ulisse'), 'Ulisse'),
      same(ulixes, e(3, 'Ulisse'), 'Ulixes'),
    ]);
    expect(groups[0]!.canonicalName).toBe('Odysseus');
  });

  it('joins two groups when every pair across them is confirmed', () => {
    const [a, b, c, d] = [e(1, 'Odysseus'), e(2, 'Ulysses'), e(3, 'Ulisse'), e(4, 'Ulises')];
    const pairs = [same(a, b), same(c, d), same(a, c), same(a, d), same(b, c), same(b, d)];
    expect(planMerges(pairs)).toEqual([{ keepId: 1, mergeIds: [2, 3, 4], canonicalName: 'Odysseus' }]);
    // One cross pair missing: the two groups stay apart.
    expect(planMerges(pairs.filter((p) => !(p.a === b && p.b === d)))).toHaveLength(2);
  });
});

describe('chainPairs', () => {
  const [a, b, c, d] = [e(1, 'Odysseus'), e(2, 'Ulysses'), e(3, 'Ulisse'), e(4, 'Ulises')];

  it('asks the pairs of a chain of three or more that no decision covers yet', () => {
    const decided = new Set([idPair(1, 2), idPair(2, 3)]);
    expect(chainPairs([same(a, b), same(b, c)], decided)).toEqual([
      { a, b: c, evidence: ['each was judged the same as a third name in this round'] },
    ]);
    // Members in id order whatever order the verdicts came in; decided pairs are not asked again.
    const all = chainPairs([same(d, c), same(c, b), same(b, a)], new Set([idPair(3, 4)]));
    expect(all.map((p) => idPair(p.a.id, p.b.id))).toEqual(['1:2', '1:3', '1:4', '2:3', '2:4']);
    expect(all.every((p) => p.a.id < p.b.id)).toBe(true);
  });

  it('asks nothing for a lone pair, nor across type classes, nor in a chain longer than twelve', () => {
    expect(chainPairs([same(a, b)], new Set())).toEqual([]);
    const city = e(5, 'Ithaca', { type: 'City' });
    const mixed = chainPairs([same(a, b), same(b, city)], new Set([idPair(1, 2), idPair(2, 5)]));
    expect(mixed).toEqual([]);
    const chain = (n: number) =>
      Array.from({ length: n - 1 }, (_, i) => same(e(i + 1, `N${i + 1}`), e(i + 2, `N${i + 2}`)));
    expect(chainPairs(chain(12), new Set())).toHaveLength((12 * 11) / 2);
    expect(chainPairs(chain(13), new Set())).toEqual([]);
  });

  it('treats separate chains separately', () => {
    const [x, y, z] = [e(11, 'Sparta'), e(12, 'Lacedaemon'), e(13, 'Lakedaimon')];
    const out = chainPairs([same(a, b), same(b, c), same(x, y), same(y, z)], new Set());
    expect(out.map((p) => idPair(p.a.id, p.b.id))).toEqual(['1:2', '1:3', '2:3', '11:12', '11:13', '12:13']);
  });
});

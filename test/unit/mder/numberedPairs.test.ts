import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { PromptLibrary } from '../../../src-main/engine/models/PromptLibrary.js';
import { confirmPairs } from '../../../src-main/engine/mder/confirmPairs.js';
import { differInNumber } from '../../../src-main/engine/mder/names.js';
import type {
  CandidatePair,
  DisambiguationEntity,
  DisambiguationStore,
} from '../../../src-main/engine/mder/disambiguationTypes.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';
import { askedPairs } from '../../support/disambiguatePrompt.js';

const prompts = new PromptLibrary(join(import.meta.dirname, '../../../prompts'));

/** Each entity found in a text of its own. */
function store(entities: readonly DisambiguationEntity[]): DisambiguationStore {
  const byId = new Map(entities.map((e) => [e.id, e]));
  return {
    entity: (id) => byId.get(id),
    entityNamed: (name) => entities.find((e) => e.name === name),
    context: (id) => `A text that names ${byId.get(id)!.name} once.`,
    setNameVectors: () => {},
    nearest: () => [],
    lexicalNeighbours: () => [],
    variants: () => [],
    factCount: () => 1,
    merge: () => [],
  };
}

const entity = (id: number, name: string, type = 'Named Entity'): DisambiguationEntity => ({ id, name, type });
const pair = (a: DisambiguationEntity, b: DisambiguationEntity): CandidatePair => ({
  a,
  b,
  evidence: ['name similarity 0.97'],
});

/** A model that calls every pair the same (the way a small model errs on near-identical names). */
const sayingSame = () =>
  new ScriptedLlm([
    {
      prompt: 'mder/disambiguate',
      reply: (v) => ({
        decisions: askedPairs(v).map(({ pair, a, b }) => ({ pair, a, b, same: true, canonical: a })),
      }),
    },
  ]);

describe('confirmPairs: pairs decided without a call', () => {
  it('decides pairs whose names differ in a number without a call: different things, never merged', async () => {
    const [y1960, y1963, apollo11, apollo13, apollo11b, ulysses, ulisse] = [
      entity(1, '1960', 'Year'),
      entity(2, '1963', 'Year'),
      entity(3, 'Apollo 11'),
      entity(4, 'Apollo 13'),
      entity(5, 'Apollo 11 mission'),
      entity(6, 'Ulysses', 'Person'),
      entity(7, 'Ulisse', 'Person'),
    ];
    const pairs = [pair(y1960, y1963), pair(apollo11, apollo13), pair(apollo11, apollo11b), pair(ulysses, ulisse)];
    const llm = sayingSame();
    const all = [y1960, y1963, apollo11, apollo13, apollo11b, ulysses, ulisse];
    const result = await confirmPairs(llm, store(all), pairs, { prompts, concurrency: 1 });
    const asked = llm.calls.flatMap((c) => askedPairs(c.prompt.variables).map((p) => `${p.a}~${p.b}`));
    expect(asked.sort()).toEqual(['Apollo 11~Apollo 11 mission', 'Ulysses~Ulisse']);
    expect(result.confirmed.map((c) => `${c.a.name}~${c.b.name}`).sort()).toEqual(asked.sort());
    // Decided either way: a chain through them is not asked again, and they are not left undecided.
    expect([...result.decided].sort()).toEqual(['1:2', '3:4', '3:5', '6:7']);
    expect(result.undecided).toEqual([]);
  });
});

describe('differInNumber', () => {
  it.each([
    ['1960', '1963', true],
    ['Apollo 11', 'Apollo 13', true],
    ['2014 Winter Olympics', '2018 Winter Olympics', true],
    ['Louis XIV', 'Louis 14', false], // one without digits: the model decides
    ['Apollo 11', 'Apollo 11 mission', false],
    ['2,000 Guineas', '2000 Guineas', false],
    ['July 07, 1789', '7 July 1789', false],
    ['1789-07-07', '7 July 1789', false],
    ['July 14, 1789', '1789-07-14', false], // a month as a word and as a number: the model decides
    ['1789-07-14', '1789-07-07', true],
    ['First World War', 'World War I', false],
    ['Boeing 747', '747', false],
  ] as const)('%s / %s → %s', (a, b, expected) => {
    expect(differInNumber(a, b)).toBe(expected);
  });
});

import { describe, expect, it } from 'vitest';
import {
  fuseGraphs,
  topologicalOrder,
  validateSubQuestions,
  type SubQuestion,
} from '../../../src-main/engine/qa/dapt/SubQuestionGraph.js';

// Written against the mutants that survived `npm run mutation -- qa/dapt/SubQuestionGraph.ts` with
// logic.test.ts alone (test/mutation/survivors.md).

const q = (id: string, question: string, dependsOn: string[] = []): SubQuestion => ({ id, question, dependsOn });

describe('validateSubQuestions', () => {
  it('returns a good graph, questions trimmed and dependencies once, up to exactly maxNodes', () => {
    expect(validateSubQuestions([q('1', ' Who is the king of Ithaca? '), q('2', 'His wife?', ['1', '1'])], 2)).toEqual([
      q('1', 'Who is the king of Ithaca?'),
      q('2', 'His wife?', ['1']),
    ]);
  });

  it('rejects an empty or blank question', () => {
    expect(() => validateSubQuestions([q('1', 'a'), q('2', '')], 8)).toThrow(/node 2 has no question/);
    expect(() => validateSubQuestions([q('1', '  ')], 8)).toThrow(/node 1 has no question/);
  });

  it('names only the nodes caught in a cycle', () => {
    expect(() => validateSubQuestions([q('1', 'a'), q('2', 'b', ['3']), q('3', 'c', ['2'])], 8)).toThrow(
      /cycle among 2, 3$/,
    );
  });
});

describe('fuseGraphs', () => {
  it('fuses a pair exactly at τ, and breaks ties by source then English position', () => {
    const source = [q('1', 'a'), q('2', 'b')];
    const english = [q('1', 'A'), q('2', 'B')];
    const { fusions } = fuseGraphs(
      source,
      english,
      [
        [0.8, 0.8],
        [0.8, 0.8],
      ],
      0.8,
    );
    expect(fusions).toEqual([
      { sourceId: '1', englishId: '1', similarity: 0.8 },
      { sourceId: '2', englishId: '2', similarity: 0.8 },
    ]);
  });

  it('keeps one edge where a fusion brings the same dependency twice', () => {
    const source = [q('1', 'Chi è il re di Itaca?'), q('2', 'Chi è sua moglie?', ['1'])];
    const english = [q('1', 'Who is the king of Ithaca?'), q('2', 'Who is his wife?', ['1'])];
    const { nodes } = fuseGraphs(
      source,
      english,
      [
        [0.9, 0],
        [0, 0.85],
      ],
      0.8,
    );
    expect(nodes.map((n) => [n.id, n.dependsOn])).toEqual([
      ['s:1', []],
      ['s:2', ['s:1']],
    ]);
  });

  it('ignores similarities beyond the nodes it was given', () => {
    const { fusions } = fuseGraphs([q('1', 'a')], [q('1', 'A')], [[0.9, 0.95], [0.99]], 0.8);
    expect(fusions).toEqual([{ sourceId: '1', englishId: '1', similarity: 0.9 }]);
  });
});

describe('topologicalOrder', () => {
  it('refuses a cycle as invalid model output, naming the nodes left', () => {
    const run = () => topologicalOrder([q('a', 'a'), q('b', 'b', ['c']), q('c', 'c', ['b'])]);
    expect(run).toThrow(/^qa\/dapt: cycle among b, c$/);
    expect(run).toThrow(expect.objectContaining({ code: 'LLM_OUTPUT_INVALID', details: { cyclic: ['b', 'c'] } }));
  });
});

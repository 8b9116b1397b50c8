import { describe, expect, it } from 'vitest';
import {
  EvidencePool,
  evidenceBrief,
  evidenceKey,
  roundScore,
  type EvidenceItem,
} from '../../../src-main/engine/qa/EvidencePool.js';
import { bm25Query } from '../../../src-main/engine/qa/retrieval/bm25Query.js';

// Written against the mutants that survived `npm run mutation -- qa/EvidencePool.ts
// qa/retrieval/bm25Query.ts` with logic.test.ts alone (test/mutation/survivors.md).

const summary = (id: number, part?: number): EvidenceItem => ({
  kind: 'summary',
  id,
  label: `e${id}`,
  text: `t${id}`,
  score: 0.123456,
  chunkIds: [],
  ...(part === undefined ? {} : { part }),
});

describe('evidence pool keys', () => {
  it("keeps an entity's partial summaries apart from each other and from its whole summary", () => {
    expect(evidenceKey(summary(4))).toBe('summary:4');
    expect(evidenceKey(summary(4, 2))).toBe('summary:4:part:2');
    const pool = new EvidencePool();
    expect([summary(4), summary(4, 1), summary(4, 2), summary(4, 2)].map((i) => pool.add(i))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(pool.size).toBe(3);
    expect(pool.has({ kind: 'summary', id: 4, part: 1 })).toBe(true);
    expect(pool.has({ kind: 'summary', id: 4, part: 3 })).toBe(false);
  });

  it('shows evidence in the trace with its score to four decimals', () => {
    expect(evidenceBrief(summary(4, 1))).toEqual({ kind: 'summary', id: 4, label: 'e4', score: 0.1235 });
    expect(roundScore(2.00004)).toBe(2);
    expect(roundScore(-0.33336)).toBe(-0.3334);
  });
});

describe('bm25Query in the other languages the app ships prompts for', () => {
  it('drops Italian, German and Portuguese function words', () => {
    expect(bm25Query('Chi era la moglie del re di Itaca?')).toBe('moglie re itaca');
    expect(bm25Query('Wer war die Frau des Königs von Ithaka?')).toBe('frau königs ithaka');
    expect(bm25Query('Quem era a esposa do rei de Ítaca?')).toBe('esposa rei ítaca');
    // No word at all: the text is kept as it was.
    expect(bm25Query('¿?')).toBe('¿?');
  });
});

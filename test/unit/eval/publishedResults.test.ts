import { describe, expect, it } from 'vitest';
import { METRIC_ORDER } from '../../../src-main/engine/eval/metrics/metricIds.js';
import { PUBLISHED_RESULTS, publishedFor } from '../../../src-main/engine/eval/publishedResults.js';

describe('published figures (seed papers only)', () => {
  it('holds every cell of MDER-DR Table 1 and DaPT Table 1, and the HyP-KGRAG cells its text quotes', () => {
    const count = (paper: string) => PUBLISHED_RESULTS.filter((f) => f.paper === paper).length;
    expect(count('MDER-DR')).toBe(10 * 4); // 10 rows × LLM-only, Vector-RAG, GraphRAG, MDER-DR
    expect(count('DaPT')).toBe(3 * 6 * 6 * 2); // 3 datasets × 6 systems × 6 languages × EM, F1
    expect(count('HyP-KGRAG')).toBe(12);
    for (const f of PUBLISHED_RESULTS) {
      expect(METRIC_ORDER as readonly string[]).toContain(f.metric);
      expect(f.value).toBeGreaterThanOrEqual(0);
      expect(f.value).toBeLessThanOrEqual(1);
      expect(f.source).toMatch(/Table/);
      expect(f.model).not.toBe('');
    }
  });

  it('spot cells read from the papers', () => {
    // MDER-DR Table 1: HotpotQA, Soft EM, match, MDER-DR 0.586 ± 0.022.
    expect(publishedFor('hotpotqa', 'soft-em', 'match').find((f) => f.system === 'MDER-DR')).toMatchObject({
      value: 0.586,
      se: 0.022,
      strategy: 'dr',
    });
    // DaPT Table 1: MuSiQue, HippoRAG2, En EM 31.1; Thai F1 19.5; DaPT De EM on 2Wiki 55.1.
    expect(publishedFor('musique', 'em', 'en').find((f) => f.system === 'HippoRAG2')).toMatchObject({
      value: 0.311,
      strategy: null,
      model: 'GPT-4o-mini, BGE-m3',
    });
    expect(publishedFor('musique', 'f1', 'th').find((f) => f.system === 'HippoRAG2')?.value).toBe(0.195);
    expect(publishedFor('2wiki', 'em', 'de').find((f) => f.system === 'DaPT')).toMatchObject({
      value: 0.551,
      strategy: 'dapt',
    });
    // HyP-KGRAG: ROUGE-1 F1 0.532, SBERT 0.629.
    expect(publishedFor('mse-kg', 'rouge1-f', 'en')[0]).toMatchObject({ system: 'HyP-KGRAG', value: 0.532 });
    expect(
      publishedFor('mse-kg', 'similarity', 'en')
        .map((f) => f.value)
        .sort(),
    ).toEqual([0.283, 0.629]);
  });
});

/**
 * The simulated UI of the Api benchmarks (load, uiLatency --watch): the read calls a screen makes
 * (docs:list, graph:search, kb:info), one every `intervalMs`, each timed from the moment it was
 * due, so time queued behind a blocked event loop counts.
 */
import type { Engine } from '../../../src-main/engine/api/Engine.js';

export const UI_CALLS = ['docs:list', 'graph:search', 'kb:info'] as const;
export type UiCall = (typeof UI_CALLS)[number];

/** Names the synthetic corpus's graph holds (or nearly): graph:search queries. */
export const SEARCHED_NAMES = ['Ada Kestrel', 'Bruno', 'Foundry', 'Osthaven', 'Greta Ravenworth', 'Mill'];

export interface Sample {
  method: UiCall;
  stage: string;
  /** performance.now() when the call was due. */
  due: number;
  /** From the moment the call was due to its reply. */
  ms: number;
}

/** Calls the UI methods on `kb` in turn, one every `intervalMs`, until `count` calls or `stop()`. */
export async function sampleUi(
  engine: Engine,
  kb: string,
  intervalMs: number,
  stage: () => string,
  count: number,
  stop: () => boolean = () => false,
): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (let i = 0; i < count && !stop(); i++) {
    const due = performance.now() + intervalMs;
    await new Promise((r) => setTimeout(r, intervalMs));
    const method = UI_CALLS[i % UI_CALLS.length]!;
    const at = stage();
    const payload =
      method === 'graph:search'
        ? { kb, query: SEARCHED_NAMES[i % SEARCHED_NAMES.length]!, limit: 20 }
        : method === 'docs:list'
          ? { kb, offset: (i * 50) % 1000, limit: 50, sort: 'title' }
          : { kb };
    await ok(engine, method, payload);
    samples.push({ method, stage: at, due, ms: performance.now() - due });
  }
  return samples;
}

export async function ok<T = unknown>(engine: Engine, method: string, payload: unknown): Promise<T> {
  const reply = await engine.call(method, payload);
  if (!reply.ok) throw new Error(`${method}: ${reply.error.code}: ${reply.error.message}`);
  return reply.value as T;
}

/** The nearest-rank percentile `p` (0–100) of `values`; 0 for none. */
export function pct(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** One table row: p50, p95, max and n of the samples' latencies. */
export function latencyRow(label: string, samples: readonly Sample[]): string {
  const l = samples.map((s) => s.ms);
  const ms = (x: number): string => `${x.toFixed(1)} ms`;
  return `  ${label.padEnd(26)} ${ms(pct(l, 50)).padStart(9)} ${ms(pct(l, 95)).padStart(9)} ${ms(Math.max(0, ...l)).padStart(9)} ${String(l.length).padStart(6)}`;
}

export const LATENCY_HEADER = `  ${''.padEnd(26)} ${'p50'.padStart(9)} ${'p95'.padStart(9)} ${'max'.padStart(9)} ${'n'.padStart(6)}`;

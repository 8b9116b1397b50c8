import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { z } from 'zod';
import { IndexingJob } from '../../../src-main/engine/mder/index.js';
import { raceAbort } from '../../../src-main/engine/base/abort.js';
import { fence } from '../../../src-main/engine/base/fence.js';
import type {
  Llm,
  LlmCallOptions,
  LlmJsonResult,
  LlmTextResult,
  RenderedPrompt,
} from '../../../src-main/engine/models/Llm.js';
import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import { ScriptedLlm, type ScriptRule } from '../../support/ScriptedLlm.js';
import {
  addCorpusDocument,
  CHUNK_SCRIPT,
  CORPUS_FILES,
  CorpusEmbedder,
  corpusRules,
  reduceBlocks,
} from '../../support/corpusScript.js';
import { openKb, prompts } from './support/corpusKb.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'polyhop-mder-sampling-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

type Sampling = Pick<LlmCallOptions, 'temperature' | 'seed'> | undefined;

/** The Italian chunk about Penelope, as Map reads it (its English summary). */
const PENELOPE_CHUNK = fence(CHUNK_SCRIPT['ulisse.it.txt'][1]!.summary);

/** The corpus rules, with the sampling of each call of `prompt` where `when` holds written to `seen`. */
function recording(prompt: string, when: (v: Readonly<Record<string, string>>) => boolean, seen: Sampling[]) {
  const rules = corpusRules();
  const spy: ScriptRule = {
    prompt,
    when,
    reply: (v, p, sampling) => {
      seen.push(sampling);
      return rules.find((r) => r.prompt === prompt && (!r.when || r.when(v)))!.reply(v, p, sampling);
    },
  };
  return new ScriptedLlm([spy, ...rules]);
}

/**
 * The corpus model, still generating its reply to one prompt when the user cancels: that call ends
 * with the cancel (CancelledError), as a local model's generation does when its signal fires.
 */
class StillGenerating implements Llm {
  readonly #inner: ScriptedLlm;
  readonly #busy: (prompt: RenderedPrompt) => boolean;
  constructor(inner: ScriptedLlm, busy: (prompt: RenderedPrompt) => boolean) {
    this.#inner = inner;
    this.#busy = busy;
  }
  get identity(): string {
    return this.#inner.identity;
  }
  get parallelism(): number {
    return this.#inner.parallelism;
  }
  get contextTokens(): number {
    return this.#inner.contextTokens;
  }
  countTokens(text: string): number {
    return this.#inner.countTokens(text);
  }
  generateText(prompt: RenderedPrompt, options?: LlmCallOptions): Promise<LlmTextResult> {
    return this.#inner.generateText(prompt, options);
  }
  generateJson<S extends z.ZodType>(
    prompt: RenderedPrompt,
    schema: S,
    options: LlmCallOptions = {},
  ): Promise<LlmJsonResult<z.infer<S>>> {
    if (this.#busy(prompt)) return raceAbort(new Promise<never>(() => {}), options.signal);
    return this.#inner.generateJson(prompt, schema, options);
  }
  async dispose(): Promise<void> {}
}

function corpusKb(): KnowledgeBase {
  const kb = openKb(join(dir, 'kb.sqlite'));
  for (const f of CORPUS_FILES) addCorpusDocument(kb, f);
  return kb;
}

const job = (kb: KnowledgeBase, llm: Llm, options: Partial<ConstructorParameters<typeof IndexingJob>[2]> = {}) =>
  new IndexingJob(kb, llm, { prompts, embedder: new CorpusEmbedder(), ...options });

describe('the sampling of a unit follows its failed runs, not its cancelled ones', () => {
  it('a Map call cancelled while the model generates is not a failure: the resumed run asks it greedily again', async () => {
    const kb = corpusKb();
    const controller = new AbortController();
    const busy = new StillGenerating(
      new ScriptedLlm(corpusRules()),
      (p) => p.name === 'mder/map' && p.variables.chunk === PENELOPE_CHUNK,
    );
    const run1 = job(kb, busy, {
      signal: controller.signal,
      progressIntervalMs: 0,
      // Every other chunk is mapped: the user cancels while the model is still on Penelope's.
      onProgress: (p) => {
        if (p.stage === 'map' && p.done === p.total - 1) controller.abort();
      },
    }).run();
    await expect(run1).rejects.toMatchObject({ code: 'CANCELLED' });

    const seen: Sampling[] = [];
    const resumed = recording('mder/map', (v) => v.chunk === PENELOPE_CHUNK, seen);
    const result = await job(kb, resumed).run();
    expect(result.failures).toEqual([]);
    expect(resumed.callsOf('mder/map')).toHaveLength(1);
    expect(seen).toEqual([{ temperature: undefined, seed: undefined }]);
    kb.close();
  });

  it('Reduce is greedy for an entity that never failed, and sampled in the run after one that did', async () => {
    const kb = corpusKb();
    const rules = corpusRules();
    const ordinary = rules.find((r) => r.prompt === 'mder/reduce')!;
    const samplings: Sampling[] = [];
    // Greedy decoding writes nothing for Penelope (the same reply every time); a sample writes her summary.
    const greedyLosesPenelope: ScriptRule = {
      prompt: 'mder/reduce',
      reply: (v, p, sampling) => {
        samplings.push(sampling);
        const reply = ordinary.reply(v, p, sampling) as { summaries: { id: number; summary: string }[] };
        if ((sampling?.temperature ?? 0) >= 0.5) return reply;
        const penelope = reduceBlocks(v.entities!).find((b) => b.name === 'Penelope')?.id;
        return { summaries: reply.summaries.map((s) => (s.id === penelope ? { ...s, summary: '' } : s)) };
      },
    };
    const llm = new ScriptedLlm([greedyLosesPenelope, ...rules]);
    const first = await job(kb, llm).run();
    expect(first.failures.map((f) => [f.stage, f.unit])).toEqual([['reduce', expect.stringContaining('entities')]]);
    expect(samplings.length).toBeGreaterThan(1);
    expect(samplings.every((s) => s?.temperature === undefined && s?.seed === undefined)).toBe(true);

    samplings.length = 0;
    const second = await job(kb, llm).run();
    expect(second.failures).toEqual([]);
    expect(samplings).toEqual([{ temperature: 0.5, seed: 1 }]);
    expect(kb.graph.listEntities({ stale: true, limit: 100 })).toEqual([]);
    kb.close();
  });
});

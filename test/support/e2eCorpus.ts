import { join } from 'node:path';
import type { z } from 'zod';
import { raceAbort, throwIfAborted } from '../../src-main/engine/base/abort.js';
import type { EmbedOptions, Embedder } from '../../src-main/engine/models/Embedder.js';
import type { Llm, LlmCallOptions, LlmJsonResult, LlmTextResult, RenderedPrompt } from '../../src-main/engine/models/Llm.js';
import { ScriptedLlm, type ScriptRule } from './ScriptedLlm.js';
import { CHUNK_SCRIPT, CORPUS_DIR, CORPUS_FILES, corpusParagraphs, corpusRules, type ScriptTriple } from './corpusScript.js';
import { QaEmbedder, qaRules } from '../unit/qa/support/qaScript.js';

/**
 * The scripted "perfect model" of test/support/corpusScript.ts and the QA script, adapted to the
 * chunks the app itself makes. corpusRules() keys preprocessing and extraction on exact
 * paragraphs (the unit tests insert one chunk per paragraph); the real loader strips Markdown and
 * the semantic chunker may join paragraphs, so here a chunk is answered with every corpus
 * paragraph it contains (compared on letters only). The other stages reuse corpusRules() and
 * qaRules() unchanged.
 */

export const E2E_CORPUS_PATHS: readonly string[] = CORPUS_FILES.map((f) => join(CORPUS_DIR, f));

/** Letters and digits only, lower case: survives Markdown stripping, re-wrapping and fencing. */
const letters = (s: string): string => s.normalize('NFC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

interface ParagraphScript {
  source: string;
  summary: string;
  triples: readonly ScriptTriple[];
}

const PARAGRAPHS: readonly ParagraphScript[] = CORPUS_FILES.flatMap((file) =>
  corpusParagraphs(file).map((p, i) => {
    const script = CHUNK_SCRIPT[file][i];
    if (!script) throw new Error(`e2eCorpus: no script for paragraph ${i} of ${file}`);
    return { source: letters(p.text), summary: script.summary, triples: script.triples };
  }),
);

function paragraphsIn(text: string, key: (p: ParagraphScript) => string): ParagraphScript[] {
  const haystack = letters(text);
  const found = PARAGRAPHS.filter((p) => haystack.includes(key(p)));
  if (found.length === 0) throw new Error(`e2eCorpus: the chunk contains no whole corpus paragraph (did the chunker split one?): ${text.slice(0, 300)}`);
  return found;
}

const preprocess = (v: Readonly<Record<string, string>>) => ({ text: paragraphsIn(v.chunk!, (p) => p.source).map((p) => p.summary).join(' ') });

export function e2eRules(): ScriptRule[] {
  return [
    { prompt: 'ingest/summarise', reply: preprocess },
    { prompt: 'ingest/translate', reply: preprocess },
    {
      prompt: 'mder/map',
      reply: (v) => ({
        triples: paragraphsIn(v.chunk!, (p) => letters(p.summary))
          .flatMap((p) => p.triples)
          .map(([subject, subjectType, relation, object, objectType]) => ({ subject, subjectType, relation, object, objectType })),
      }),
    },
    ...corpusRules(),
    ...qaRules(),
  ];
}

/** A shared, adjustable delay, so a job runs long enough to be paused and cancelled from the UI. */
export class Throttle {
  ms = 0;

  async wait(signal: AbortSignal | undefined): Promise<void> {
    throwIfAborted(signal);
    if (this.ms > 0) await raceAbort(new Promise((r) => setTimeout(r, this.ms)), signal);
  }
}

/** The scripted LLM behind a {@link Throttle}. */
class ThrottledLlm implements Llm {
  readonly #inner: Llm;
  readonly #throttle: Throttle;
  readonly identity: string;
  readonly parallelism: number;

  constructor(inner: Llm, throttle: Throttle) {
    this.#inner = inner;
    this.#throttle = throttle;
    this.identity = inner.identity;
    this.parallelism = inner.parallelism;
  }

  async generateText(prompt: RenderedPrompt, options: LlmCallOptions = {}): Promise<LlmTextResult> {
    await this.#throttle.wait(options.signal);
    return this.#inner.generateText(prompt, options);
  }

  async generateJson<S extends z.ZodType>(prompt: RenderedPrompt, schema: S, options: LlmCallOptions = {}): Promise<LlmJsonResult<z.infer<S>>> {
    await this.#throttle.wait(options.signal);
    return this.#inner.generateJson(prompt, schema, options);
  }

  countTokens(text: string): number {
    return this.#inner.countTokens(text);
  }

  dispose(): Promise<void> {
    return this.#inner.dispose();
  }
}

class ThrottledEmbedder implements Embedder {
  readonly #inner: Embedder;
  readonly #throttle: Throttle;
  readonly identity: string;
  readonly dimension: number;

  constructor(inner: Embedder, throttle: Throttle) {
    this.#inner = inner;
    this.#throttle = throttle;
    this.identity = inner.identity;
    this.dimension = inner.dimension;
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    await this.#throttle.wait(options.signal);
    return this.#inner.embed(texts, options);
  }

  dispose(): Promise<void> {
    return this.#inner.dispose();
  }
}

export interface E2eModels {
  /** What the engine gets through its test hook (`Engine.create({ models })`). */
  llm: Llm;
  embedder: Embedder;
  /** The scripted model underneath, for assertions on the calls it received. */
  scripted: ScriptedLlm;
  throttle: Throttle;
}

/** The corpus' scripted LLM and embedder (the QA embedder: same vector space as CorpusEmbedder). */
export function e2eModels(): E2eModels {
  const throttle = new Throttle();
  const scripted = new ScriptedLlm(e2eRules());
  return { llm: new ThrottledLlm(scripted, throttle), embedder: new ThrottledEmbedder(new QaEmbedder(), throttle), scripted, throttle };
}

import { join } from 'node:path';
import type { z } from 'zod';
import { raceAbort, throwIfAborted } from '../../src-main/engine/base/abort.js';
import type { EmbedOptions, Embedder } from '../../src-main/engine/models/Embedder.js';
import type {
  Llm,
  LlmCallOptions,
  LlmJsonResult,
  LlmTextResult,
  RenderedPrompt,
} from '../../src-main/engine/models/Llm.js';
import { ScriptedLlm, type ScriptRule } from './ScriptedLlm.js';
import { summariseBatchRule } from './summariseBatchPrompt.js';
import {
  CHUNK_SCRIPT,
  CORPUS_DIR,
  CORPUS_FILES,
  corpusParagraphs,
  corpusRules,
  type ScriptTriple,
} from './corpusScript.js';
import { QaEmbedder, qaRules } from '../unit/qa/support/qaScript.js';

/**
 * The scripted "perfect model" of test/support/corpusScript.ts and the QA script, adapted to the
 * chunks the app itself makes. corpusRules() keys preprocessing and extraction on exact
 * paragraphs (the unit tests insert one chunk per paragraph); the real loader strips Markdown and
 * the semantic chunker cuts at sentences, joining them or not. So here the script is per
 * sentence, derived from CHUNK_SCRIPT, and a chunk is answered with every corpus sentence it
 * contains (compared on letters only). The other stages reuse corpusRules() and qaRules().
 */

export const E2E_CORPUS_PATHS: readonly string[] = CORPUS_FILES.map((f) => join(CORPUS_DIR, f));

/** Letters and digits only, lower case: survives Markdown stripping, re-wrapping and fencing. */
const letters = (s: string): string =>
  s
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');

const sentences = (text: string): string[] =>
  text
    .split('\n')
    .filter((line) => !line.startsWith('#')) // Markdown headings state no fact
    .join(' ')
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter(Boolean);

interface SentenceScript {
  /** The sentence as written, letters only. */
  source: string;
  /** Its English summary sentence, and that, letters only. */
  summary: string;
  summaryKey: string;
  triples: ScriptTriple[];
}

/**
 * A paragraph's sentences paired with its summary's sentences; each triple goes with the summary
 * sentence that names its object.
 */
const SENTENCES: readonly SentenceScript[] = CORPUS_FILES.flatMap((file) =>
  corpusParagraphs(file).flatMap((p, i) => {
    const script = CHUNK_SCRIPT[file][i];
    const sources = sentences(p.text);
    const summaries = sentences(script?.summary ?? '');
    if (!script || sources.length !== summaries.length)
      throw new Error(
        `e2eCorpus: paragraph ${i} of ${file} has ${sources.length} sentences, its summary ${summaries.length}`,
      );
    const out = sources.map((source, k) => ({
      source: letters(source),
      summary: summaries[k]!,
      summaryKey: letters(summaries[k]!),
      triples: [] as ScriptTriple[],
    }));
    for (const triple of script.triples) {
      const home = out.find((s) => s.summaryKey.includes(letters(triple[3])));
      if (!home) throw new Error(`e2eCorpus: no summary sentence of ${file}#${i} names ${triple[3]}`);
      home.triples.push(triple);
    }
    return out;
  }),
);

const sentencesIn = (text: string, key: (s: SentenceScript) => string): SentenceScript[] => {
  const haystack = letters(text);
  return SENTENCES.filter((s) => haystack.includes(key(s)));
};

/** A chunk with no fact sentence (a heading) is summarised as itself. */
const preprocess = (v: Readonly<Record<string, string>>) => {
  const found = sentencesIn(v.chunk!, (s) => s.source);
  return { text: found.length > 0 ? found.map((s) => s.summary).join(' ') : v.chunk!.trim() };
};

export function e2eRules(): ScriptRule[] {
  return [
    { prompt: 'ingest/summarise', reply: preprocess },
    summariseBatchRule({ prompt: 'ingest/summarise', reply: preprocess }),
    { prompt: 'ingest/translate', reply: preprocess },
    {
      prompt: 'mder/map',
      reply: (v) => ({
        triples: sentencesIn(v.chunk!, (s) => s.summaryKey)
          .flatMap((s) => s.triples)
          .map(([subject, subjectType, relation, object, objectType]) => ({
            subject,
            subjectType,
            relation,
            object,
            objectType,
          })),
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

  async generateJson<S extends z.ZodType>(
    prompt: RenderedPrompt,
    schema: S,
    options: LlmCallOptions = {},
  ): Promise<LlmJsonResult<z.infer<S>>> {
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
  return {
    llm: new ThrottledLlm(scripted, throttle),
    embedder: new ThrottledEmbedder(new QaEmbedder(), throttle),
    scripted,
    throttle,
  };
}

import type { z } from 'zod';
import { PolyhopError } from '../../src-main/engine/base/errors.js';
import { throwIfAborted } from '../../src-main/engine/base/abort.js';
import {
  LLM_CALL_DEFAULTS,
  type Llm,
  type LlmCallOptions,
  type LlmJsonResult,
  type LlmTextResult,
  type LlmUsage,
  type RenderedPrompt,
} from '../../src-main/engine/models/Llm.js';
import { generationBudget } from '../../src-main/engine/models/LlamaCppLlm.js';
import { modelChunks } from './modelChunks.js';
import {
  qwen3CountTokens as countTokens,
  qwen3Decode as decode,
  qwen3Encode as encode,
  qwen3PromptTokens,
} from './qwen3Tokens.js';
import { seededRandom } from './seededRandom.js';

/**
 * A test model that answers like a small real one: it asks a cooperative model (a ScriptedLlm
 * with corpus rules, so the content stays meaningful) and degrades the reply the way Qwen3-4B or
 * a 4B laptop model does, seeded so a failing seed reproduces:
 * - batches (any array in a reply) with an item dropped, one item written twice in place of
 *   another, or two items swapped;
 * - names in another language ("Ulisse" for "Odysseus") or with a "(Type)" suffix;
 * - placeholders spelled `X`, `[X]`, `<X>`, `?` or "unknown" instead of `?X`;
 * - citations glued to words ("Penelope[1]."), a sentence of reasoning before the answer, empty
 *   strings and very long (rambling) strings;
 * - reasoning tokens spent before the answer (a thinking model), budgeted as node-llama-cpp
 *   budgets them under LlamaCppLlm (their own thought budget, not the answer's: `#thinkingTokens`).
 * Every reply still passes the call's schema, as a grammar guarantees: a degradation the schema
 * forbids is not made. Limits are a real model's: tokens are counted with a real tokenizer
 * (Qwen3's, as the scripted model counts), a prompt that does not fit the context is refused as LlamaCppLlm refuses it, and
 * output is cut at `maxTokens` (text: `stopReason: 'maxTokens'`; JSON: the cut text fails its
 * schema, LLM_OUTPUT_INVALID, after a retry cut the same way). Text streams to `onTextChunk` a few
 * tokens at a time, a JSON call's raw JSON included. It never throws anything else, so a run with it tests degradation,
 * not crashes.
 */
export interface UncooperativeLlmOptions {
  /** Seed of the PRNG that picks the degradations. */
  seed: number;
  /** Tokens of one sequence (prompt + completion). Default: 4096, LlamaCppLlm's default. */
  contextTokens?: number;
  /** Default: 4. */
  parallelism?: number;
  /** Probability of each degradation at each place it can happen; see {@link DEFAULT_RATES}. */
  rates?: Partial<DegradationRates>;
  /** Rates for some prompts only, over `rates` (e.g. to leave a step a test does not cover undisturbed). */
  promptRates?: Readonly<Record<string, Partial<DegradationRates>>>;
  /** Names in other languages, by English name (the forms a model may write instead). */
  nameVariants?: Readonly<Record<string, readonly string[]>>;
  /** Prompts whose replies are degraded. Default: all. Limits are respected for every prompt. */
  degrade?: (promptName: string) => boolean;
}

export type DegradationKind =
  | 'dropItem'
  | 'repeatItem'
  | 'swapItems'
  | 'foreignName'
  | 'typeSuffix'
  | 'placeholder'
  | 'gluedCitation'
  | 'reasoningPrefix'
  | 'longString'
  | 'emptyString'
  | 'thinking'
  | 'renumberedIds'
  | 'textUnderTwoIds'
  | 'fixedKeyDrift'
  | 'flippedVerdict'
  | 'inflatedScore'
  | 'sourceLanguage'
  | 'repetitionLoop'
  | 'emptyReply'
  | 'runtimeError'
  | 'cutAtMaxTokens'
  | 'contextOverflow';

export type DegradationRates = Record<Exclude<DegradationKind, 'cutAtMaxTokens' | 'contextOverflow'>, number>;

export const DEFAULT_RATES: DegradationRates = {
  dropItem: 0.15,
  repeatItem: 0.1,
  swapItems: 0.2,
  foreignName: 0.1,
  typeSuffix: 0.1,
  placeholder: 0.5,
  gluedCitation: 0.3,
  reasoningPrefix: 0.1,
  longString: 0.05,
  emptyString: 0.05,
  thinking: 0.1,
  renumberedIds: 0.1,
  textUnderTwoIds: 0.05,
  fixedKeyDrift: 0.05,
  flippedVerdict: 0.05,
  inflatedScore: 0.15,
  sourceLanguage: 0.05,
  repetitionLoop: 0.03,
  emptyReply: 0.05,
  runtimeError: 0.02,
};

/*
 * Where the rates come from: none is measured on a real model in this repository. They are set
 * from the failure modes seen when small (≤ 4B) instruction models answer batched JSON under a
 * grammar, at an order of magnitude chosen so that 50 seeds of the product test meet every kind
 * many times (the coverage test checks that) while a cooperative reply stays the most likely one:
 * - renumberedIds 0.1, textUnderTwoIds 0.05: a model that skips an item usually numbers on from
 *   the skipped one, then fills the count the grammar enforces with a copy; same order as dropItem;
 * - fixedKeyDrift 0.05: a copied vocabulary term or id rarely changes (casing, "_" as a space,
 *   "q2" as "2");
 * - flippedVerdict 0.05: a wrong yes/no from a small judge, a minority of its verdicts;
 * - inflatedScore 0.15: judges of this size score leniently far more often than harshly;
 * - sourceLanguage 0.05: a translation left in its language (the model copies its input);
 * - repetitionLoop 0.03: greedy decoding that falls into a loop and runs to maxTokens;
 * - emptyReply 0.05 (a single-item batch answered with an empty text, as emptyString);
 * - runtimeError 0.02: a call that fails in the runtime (LLM_OUTPUT_INVALID after its retry).
 */
/** One degradation made: which prompt, what, and where in the reply (a JSON path). */
export interface Degradation {
  prompt: string;
  kind: DegradationKind;
  at: string;
  /** The variables of the prompt whose reply was degraded (which chunk, which pairs): tests attribute a loss to it. */
  variables: Readonly<Record<string, string>>;
  /** The reply's batch item the degradation removed or changed, as the cooperative model wrote it (JSON replies). */
  item?: unknown;
}

/** Keys whose strings are names (of entities, answers, placeholders). */
const NAME_KEY = /^(subject|object|source|target|canonical|name|entity|value)$/i;
/** Keys whose strings are closed vocabularies or references: a model copies them. */
const FIXED_KEY = /(type|relation|id|ids|direction|dependsOn|language)$/i;
/** Booleans that are a model's verdict on its input. */
const VERDICT_KEY = /^(same|found|consistent|sufficient)$/;
/** Numbers that are a judge's score. */
const SCORE_KEY = /(score|directness|clarity|relevance)$/i;
/** Variables holding the text a translation prompt translates. */
const SOURCE_VARIABLE = ['chunk', 'question', 'text'] as const;
const PLACEHOLDER = /^\?[A-Za-z]\w*$/;
const PLACEHOLDER_SPELLINGS = (p: string): string[] => [
  p.slice(1),
  `[${p.slice(1)}]`,
  `<${p.slice(1)}>`,
  '?',
  'unknown',
];
const REASONING = [
  'Let me check the passages first. ',
  'Based on the given information, ',
  'Thinking step by step: the text says that ',
];

type Path = (string | number)[];

export class UncooperativeLlm implements Llm {
  readonly identity: string;
  readonly parallelism: number;
  readonly contextTokens: number;
  /** Every degradation made, in call order. */
  readonly degradations: Degradation[] = [];
  readonly #inner: Llm;
  readonly #random: () => number;
  readonly #rates: DegradationRates;
  readonly #variants: Readonly<Record<string, readonly string[]>>;
  readonly #toEnglish = new Map<string, string>();
  readonly #options: UncooperativeLlmOptions;
  /** The prompt whose reply is being degraded (replies are degraded synchronously, one at a time). */
  #prompt: string | undefined;
  #variables: Readonly<Record<string, string>> = {};

  constructor(inner: Llm, options: UncooperativeLlmOptions) {
    this.#inner = inner;
    this.#options = options;
    this.#random = seededRandom(options.seed);
    this.#rates = { ...DEFAULT_RATES, ...options.rates };
    this.#variants = options.nameVariants ?? {};
    for (const [english, forms] of Object.entries(this.#variants))
      for (const f of forms) this.#toEnglish.set(f.toLowerCase(), english);
    this.identity = `uncooperative-${options.seed}(${inner.identity})`;
    this.parallelism = options.parallelism ?? 4;
    this.contextTokens = options.contextTokens ?? 4096;
  }

  countTokens(text: string): number {
    return countTokens(text);
  }

  /**
   * The name a degraded name stands for: "(Type)" suffix off, another language's form back to
   * English. The cooperative script reads the engine's prompts through it, as a model understands
   * that "Ulisse (Person)" is Odysseus.
   */
  readonly resolveName = (name: string): string => {
    const bare = name.replace(/\s*\([^()]*\)\s*$/, '').trim();
    return this.#toEnglish.get(bare.toLowerCase()) ?? bare;
  };

  async generateText(prompt: RenderedPrompt, options: LlmCallOptions = {}): Promise<LlmTextResult> {
    const started = performance.now();
    const { budget, promptTokens, context } = this.#budget(prompt, options);
    const inner = await this.#inner.generateText(prompt, {
      ...options,
      // The reply as the model would write it without a limit; this double applies the limits.
      maxTokens: Infinity,
      onTextChunk: undefined,
      onTextRestart: undefined,
    });
    throwIfAborted(options.signal);
    const degrading = this.#degrading(prompt);
    this.#prompt = prompt.name;
    this.#variables = prompt.variables;
    let text = degrading ? this.#degradeText(prompt.name, 'text', inner.text, true) : inner.text;
    const thinking = degrading ? this.#thinkingTokens(prompt.name, options, context) : null;
    const room = thinking ? thinking.answerRoom.text : budget;
    if (degrading && this.#chance('repetitionLoop')) {
      text = loop(text, room);
      this.#note(prompt.name, 'repetitionLoop', 'text');
    }
    const tokens = encode(text);
    const cut = tokens.length > room;
    if (cut) {
      text = decode(tokens.slice(0, room));
      this.#note(prompt.name, 'cutAtMaxTokens', 'text');
    }
    stream(text, options);
    return {
      text,
      stopReason: cut ? 'maxTokens' : 'eos',
      usage: this.#usage(promptTokens, (thinking?.tokens ?? 0) + Math.min(room, tokens.length), started),
    };
  }

  async generateJson<S extends z.ZodType>(
    prompt: RenderedPrompt,
    schema: S,
    options: LlmCallOptions = {},
  ): Promise<LlmJsonResult<z.infer<S>>> {
    const started = performance.now();
    const { budget, promptTokens, context } = this.#budget(prompt, options);
    const { value } = await this.#inner.generateJson(prompt, schema, {
      ...options,
      // The reply as the model would write it without a limit; this double applies the limits.
      maxTokens: Infinity,
      onTextChunk: undefined,
      onTextRestart: undefined,
    });
    throwIfAborted(options.signal);
    const degrading = this.#degrading(prompt);
    this.#prompt = prompt.name;
    this.#variables = prompt.variables;
    if (degrading && this.#chance('runtimeError')) {
      this.#note(prompt.name, 'runtimeError', '$');
      throw new PolyhopError('LLM_OUTPUT_INVALID', `${prompt.name}: model output failed its schema: invalid JSON`, {
        details: { prompt: prompt.name, promptVersion: prompt.version, raw: '{"', reason: 'invalid JSON' },
      });
    }
    const reply = degrading ? this.#degradeJson(prompt.name, value, schema) : value;
    const thinking = degrading ? this.#thinkingTokens(prompt.name, options, context) : null;
    let raw = JSON.stringify(reply);
    const room = thinking ? thinking.answerRoom.json : budget;
    if (degrading && this.#chance('repetitionLoop')) {
      raw = loop(raw, room);
      this.#note(prompt.name, 'repetitionLoop', '$');
    }
    const tokens = encode(raw);
    if (tokens.length > room) {
      this.#note(prompt.name, 'cutAtMaxTokens', '$');
      const cut = decode(tokens.slice(0, room));
      // As LlamaCppLlm, a reply that fails its schema is retried once; under the same budget the retry is cut too.
      stream(cut, options);
      options.onTextRestart?.();
      stream(cut, options);
      throw new PolyhopError(
        'LLM_OUTPUT_INVALID',
        `${prompt.name}: model output failed its schema: unterminated JSON (stopped at maxTokens)`,
        {
          details: {
            prompt: prompt.name,
            promptVersion: prompt.version,
            raw: cut,
            reason: 'stopped at maxTokens',
            maxTokens: budget,
          },
        },
      );
    }
    stream(raw, options);
    return {
      value: schema.parse(reply) as z.infer<S>,
      usage: this.#usage(promptTokens, (thinking?.tokens ?? 0) + tokens.length, started),
    };
  }

  async dispose(): Promise<void> {
    await this.#inner.dispose();
  }

  /** Degradations of one kind (for assertions that the double did degrade). */
  count(kind: DegradationKind, prompt?: string): number {
    return this.degradations.filter((d) => d.kind === kind && (prompt === undefined || d.prompt === prompt)).length;
  }

  // ── limits ────────────────────────────────────────────────────────────────────

  /** The completion budget left by the prompt, as LlamaCppLlm computes it; a prompt that does not fit is refused. */
  #budget(prompt: RenderedPrompt, options: LlmCallOptions): { budget: number; promptTokens: number; context: number } {
    throwIfAborted(options.signal);
    const promptTokens = qwen3PromptTokens(prompt, false);
    const room = this.contextTokens - promptTokens;
    if (room <= 0) {
      this.#variables = prompt.variables;
      this.#note(prompt.name, 'contextOverflow', '$');
      throw new PolyhopError(
        'BAD_INPUT',
        `${prompt.name}: prompt of ${promptTokens} tokens does not fit the ${this.contextTokens}-token context`,
        {
          details: { prompt: prompt.name, promptTokens, contextSize: this.contextTokens },
        },
      );
    }
    return { budget: Math.min(options.maxTokens ?? LLM_CALL_DEFAULTS.maxTokens, room), promptTokens, context: room };
  }

  #usage(promptTokens: number, completionTokens: number, started: number): LlmUsage {
    return { promptTokens, completionTokens, durationMs: performance.now() - started, cached: false };
  }

  // ── degradations ──────────────────────────────────────────────────────────────

  #degrading(prompt: RenderedPrompt): boolean {
    return this.#options.degrade ? this.#options.degrade(prompt.name) : true;
  }

  #chance(kind: keyof DegradationRates): boolean {
    const rate =
      (this.#prompt !== undefined ? this.#options.promptRates?.[this.#prompt]?.[kind] : undefined) ?? this.#rates[kind];
    return this.#random() < rate;
  }

  #pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.#random() * items.length)]!;
  }

  #note(prompt: string, kind: DegradationKind, at: string, item?: unknown): void {
    this.degradations.push({ prompt, kind, at, variables: this.#variables, ...(item === undefined ? {} : { item }) });
  }

  /**
   * A thinking model's reasoning before the answer, and the room it leaves the answer, as
   * LlamaCppLlm runs node-llama-cpp 3.21.1 (the double's own draw of 40–400 tokens, capped by the
   * thought budget `generationBudget` gives: LlamaCppLlm.ts:328-333, 412-416):
   * - JSON (under a grammar, which allows no thought segment from the first token): the thought
   *   is generated first without the grammar, then the answer under the grammar with `maxTokens`
   *   of its own, within what the context has left (LlamaCppLlm.ts:340-344). generationBudget
   *   reserves the answer's room first, so reasoning never takes from it; with no room beside
   *   the answer there is no thought.
   * - Text: one generation of `maxTokens` = answer + thought budget (generationBudget), whose
   *   thought segment node-llama-cpp closes when its budget is spent (LlamaChat.js:2200-2216,
   *   `handleBudgetTriggers`), while `maxTokens` counts every generated token, thought included
   *   (LlamaChat.js:1988 and 2159-2161, `generatedTokens`); so the answer keeps its own
   *   `maxTokens` whatever the thought spent, within the context.
   * The thought budget is the call's `reasoningTokens`, or LLM_CALL_DEFAULTS' when the step asks
   * for none (a template without a switch reasons anyway: LlamaCppLlm.ts:314, 330).
   */
  #thinkingTokens(
    prompt: string,
    options: LlmCallOptions,
    context: number,
  ): { tokens: number; answerRoom: { json: number; text: number } } | null {
    if (!this.#chance('thinking')) return null;
    const drawn = 40 + Math.floor(this.#random() * 360);
    const maxTokens = options.maxTokens ?? LLM_CALL_DEFAULTS.maxTokens;
    const asked = options.reasoningTokens ?? 0;
    const budget = generationBudget({
      answerTokens: maxTokens,
      reasoningTokens: asked > 0 ? asked : LLM_CALL_DEFAULTS.reasoningTokens,
      room: context,
      reasons: true,
    });
    const tokens = Math.min(drawn, budget.thoughtTokens ?? 0);
    if (tokens === 0) return null; // no room beside the answer: LlamaCppLlm skips the thought (LlamaCppLlm.ts:340)
    this.#note(prompt, 'thinking', '$');
    return {
      tokens,
      answerRoom: {
        json: Math.max(1, Math.min(maxTokens, context - tokens)),
        text: Math.max(0, budget.maxTokens - tokens),
      },
    };
  }

  /**
   * Walks the reply and tries each degradation where it can happen; one the schema rejects is
   * undone (the grammar would not have let the model write it).
   */
  #degradeJson(prompt: string, value: unknown, schema: z.ZodType): unknown {
    let reply = structuredClone(value);
    const attempt = (
      kind: DegradationKind,
      path: Path,
      change: (reply: unknown) => void,
      itemAt: Path = path,
    ): void => {
      const next = structuredClone(reply);
      const item = batchItem(reply, itemAt);
      change(next);
      if (!schema.safeParse(next).success) return;
      reply = next;
      this.#note(prompt, kind, jsonPath(path), item);
    };
    // Strings first, then arrays from the innermost and last: a dropped item moves no path still to visit.
    const all = [...sites(value)];
    const ordered = [
      ...all.filter((s) => !Array.isArray(s.node)),
      ...all.filter((s) => Array.isArray(s.node)).reverse(),
    ];
    for (const { path, node, key, parent } of ordered) {
      if (Array.isArray(node)) {
        if (node.length > 1 && this.#chance('swapItems')) {
          const i = Math.floor(this.#random() * node.length);
          const j = (i + 1 + Math.floor(this.#random() * (node.length - 1))) % node.length;
          attempt('swapItems', path, (r) => {
            const a = at(r, path) as unknown[];
            [a[i], a[j]] = [a[j], a[i]];
          });
        }
        if (node.length > 1 && this.#chance('repeatItem')) {
          const i = Math.floor(this.#random() * node.length);
          const j = (i + 1 + Math.floor(this.#random() * (node.length - 1))) % node.length;
          // Written twice, once in place of another item: the length a grammar enforces still holds.
          attempt(
            'repeatItem',
            path,
            (r) => {
              const a = at(r, path) as unknown[];
              a[j] = structuredClone(a[i]);
            },
            [...path, j],
          );
        }
        if (node.length > 1 && node.every(hasNumericId) && this.#chance('renumberedIds')) {
          // Skips item i, numbers on from it (each later text under the id before its own), and
          // fills the count the grammar holds it to with the last text again: one text under two ids.
          const i = Math.floor(this.#random() * (node.length - 1));
          attempt(
            'renumberedIds',
            path,
            (r) => {
              const a = at(r, path) as { id: number }[];
              const ids = a.map((e) => e.id);
              a.splice(i, 1);
              a.forEach((e, k) => k >= i && (e.id = ids[k]!));
              a.push({ ...structuredClone(a.at(-1)!), id: ids.at(-1)! });
            },
            [...path, i],
          );
        }
        if (node.length > 1 && node.every(hasNumericId) && this.#chance('textUnderTwoIds')) {
          const i = Math.floor(this.#random() * node.length);
          const j = (i + 1 + Math.floor(this.#random() * (node.length - 1))) % node.length;
          attempt(
            'textUnderTwoIds',
            path,
            (r) => {
              const a = at(r, path) as { id: number }[];
              a[j] = { ...structuredClone(a[i]!), id: a[j]!.id };
            },
            [...path, j],
          );
        }
        if (node.length > 0 && this.#chance('dropItem')) {
          const i = Math.floor(this.#random() * node.length);
          attempt('dropItem', path, (r) => (at(r, path) as unknown[]).splice(i, 1), [...path, i]);
        }
        continue;
      }
      if (typeof node === 'boolean') {
        if (typeof key === 'string' && VERDICT_KEY.test(key) && this.#chance('flippedVerdict'))
          attempt('flippedVerdict', path, (r) => setAt(r, path, !node));
        continue;
      }
      if (typeof node === 'number') {
        if (typeof key === 'string' && SCORE_KEY.test(key) && this.#chance('inflatedScore'))
          attempt('inflatedScore', path, (r) => setAt(r, path, node + 1));
        continue;
      }
      if (typeof node !== 'string') continue;
      if (typeof key === 'string' && FIXED_KEY.test(key)) {
        const drifted = driftFixed(node);
        if (drifted !== node && this.#chance('fixedKeyDrift'))
          attempt('fixedKeyDrift', path, (r) => setAt(r, path, drifted));
        continue;
      }
      const source = this.#sourceText(prompt);
      if (source !== null && node && this.#chance('sourceLanguage')) {
        attempt('sourceLanguage', path, (r) => setAt(r, path, source));
        continue;
      }
      const set = (kind: DegradationKind, text: string): void => attempt(kind, path, (r) => setAt(r, path, text));
      if (typeof key === 'string' && NAME_KEY.test(key)) {
        if (PLACEHOLDER.test(node)) {
          if (this.#chance('placeholder')) set('placeholder', this.#pick(PLACEHOLDER_SPELLINGS(node)));
          continue;
        }
        const variants = this.#variants[node];
        if (variants?.length && this.#chance('foreignName')) set('foreignName', this.#pick(variants));
        else if (node && this.#chance('typeSuffix')) {
          const type =
            parent && typeof parent === 'object' && !Array.isArray(parent)
              ? (parent as Record<string, unknown>)[`${key}Type`]
              : undefined;
          set('typeSuffix', `${node} (${typeof type === 'string' && type ? type : 'Thing'})`);
        }
        continue;
      }
      const degraded = this.#degradeProse(prompt, node);
      if (degraded) set(degraded.kind, degraded.text);
    }
    // A reply about one item (no batch of several) that says nothing: every list and text in it empty.
    if (!all.some((s) => Array.isArray(s.node) && s.node.length > 1) && this.#chance('emptyReply'))
      attempt('emptyReply', [], (r) => emptied(r), []);
    return reply;
  }

  /** The text a translation prompt was given, which a model may hand back untranslated; null for other prompts. */
  #sourceText(prompt: string): string | null {
    const v = this.#variables;
    // A summary asked for in English of a chunk in another language translates it too.
    const translating =
      prompt.endsWith('/translate') ||
      (v.outputLanguage === 'English' && v.language !== undefined && v.language !== 'English');
    if (!translating) return null;
    for (const v of SOURCE_VARIABLE) {
      const text = this.#variables[v];
      if (text !== undefined) return text.replace(/^<\w+>\n?|\n?<\/\w+>$/g, '').trim();
    }
    return null;
  }

  /** Free text of a text call: reasoning first, glued citations, rambling, or nothing. */
  #degradeText(prompt: string, at: string, text: string, glue: boolean): string {
    const source = this.#sourceText(prompt);
    if (source !== null && this.#chance('sourceLanguage')) {
      this.#note(prompt, 'sourceLanguage', at);
      return source;
    }
    if (this.#chance('emptyReply')) {
      this.#note(prompt, 'emptyReply', at);
      return '';
    }
    let out = text;
    if (glue && /\s\[\d+\]/.test(out) && this.#chance('gluedCitation')) {
      out = out.replace(/\s+(\[\d+\])/g, '$1');
      this.#note(prompt, 'gluedCitation', at);
    }
    const prose = this.#degradeProse(prompt, out);
    if (!prose) return out;
    this.#note(prompt, prose.kind, at);
    return prose.text;
  }

  /** One of the prose degradations, or none (the caller notes it once the schema accepts it). */
  #degradeProse(_prompt: string, text: string): { kind: DegradationKind; text: string } | null {
    if (this.#chance('emptyString')) return { kind: 'emptyString', text: '' };
    if (text && this.#chance('longString'))
      return {
        kind: 'longString',
        text: Array.from({ length: 6 + Math.floor(this.#random() * 10) }, () => text).join(' '),
      };
    if (text && this.#chance('reasoningPrefix'))
      return { kind: 'reasoningPrefix', text: `${this.#pick(REASONING)}${text}` };
    if (text && this.#chance('gluedCitation')) {
      // Its citations glued to the word before them ("Penelope[1]."), or one glued at a sentence's end.
      const glued = /\s\[\d+\]/.test(text)
        ? text.replace(/\s+(\[\d+\])/g, '$1')
        : text.replace(/([\p{L}\p{N}])([.!?])(\s|$)/u, '$1[1]$2$3');
      if (glued !== text) return { kind: 'gluedCitation', text: glued };
    }
    return null;
  }
}

/**
 * A repetition loop: the text, then one phrase of it again and again past `room` tokens (greedy
 * decoding stuck in a cycle until the budget stops it; JSON so cut is unterminated).
 */
function loop(text: string, room: number): string {
  const tail = text.slice(Math.max(0, text.length - 40)) || 'and ';
  let out = text.slice(0, Math.max(0, text.length - 2));
  while (countTokens(out) <= room) out += tail.repeat(Math.max(1, Math.ceil(room / 8)));
  return out;
}

/** Generated text to `onTextChunk` a few tokens at a time, as a model streams it (a JSON call's raw JSON included). */
function stream(text: string, options: LlmCallOptions): void {
  if (options.onTextChunk) for (const chunk of modelChunks(text)) options.onTextChunk(chunk);
}

interface Site {
  path: Path;
  node: unknown;
  key: string | number | undefined;
  parent: unknown;
}

/** Every array, string, boolean and number of a JSON value, outermost first. */
function* sites(value: unknown, path: Path = [], key?: string | number, parent?: unknown): Generator<Site> {
  if (Array.isArray(value)) {
    yield { path, node: value, key, parent };
    // Items of a string array take the array's key (descriptions, summaries).
    for (let i = 0; i < value.length; i++)
      yield* sites(value[i], [...path, i], typeof value[i] === 'string' ? key : i, value);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) yield* sites(v, [...path, k], k, value);
  } else if (typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number') {
    yield { path, node: value, key, parent };
  }
}

function hasNumericId(item: unknown): item is { id: number } {
  return !!item && typeof item === 'object' && typeof (item as { id?: unknown }).id === 'number';
}

/** A vocabulary term or reference as a model may miscopy it: "_" as a space, another casing, "q2" as "2". */
function driftFixed(text: string): string {
  if (text.includes('_')) return text.replaceAll('_', ' ');
  if (/^[a-z]+\d+$/i.test(text)) return text.replace(/^[a-z]+/i, '');
  if (/[A-Z]/.test(text)) return text.toLowerCase();
  return text.toUpperCase();
}

/** Every list emptied and every text blanked, in place (an empty reply). */
function emptied(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  for (const [k, v] of Object.entries(node)) {
    const o = node as Record<string, unknown>;
    if (Array.isArray(v)) o[k] = [];
    else if (typeof v === 'string') o[k] = '';
    else emptied(v);
  }
}

/** The item of the innermost array on a path (the batch item a change hits), as it is now. */
function batchItem(root: unknown, path: Path): unknown {
  for (let n = path.length; n > 0; n--)
    if (typeof path[n - 1] === 'number') return structuredClone(at(root, path.slice(0, n)));
  return undefined;
}

function at(root: unknown, path: Path): unknown {
  return path.reduce<unknown>((node, k) => (node as Record<string | number, unknown>)[k], root);
}

function setAt(root: unknown, path: Path, value: unknown): void {
  (at(root, path.slice(0, -1)) as Record<string | number, unknown>)[path.at(-1)!] = value;
}

const jsonPath = (path: Path): string => `$${path.map((k) => (typeof k === 'number' ? `[${k}]` : `.${k}`)).join('')}`;

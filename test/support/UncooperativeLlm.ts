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
import {
  qwen3CountTokens as countTokens,
  qwen3Decode as decode,
  qwen3Encode as encode,
  qwen3PromptTokens,
} from './qwen3Tokens.js';
import { seededRandom } from './seededRandom.js';
import {
  driftFixed,
  FIXED_KEY,
  loop,
  NAME_KEY,
  PLACEHOLDER,
  PLACEHOLDER_SPELLINGS,
  REASONING,
  SCORE_KEY,
  sourceText,
  stream,
  VERDICT_KEY,
} from './degradedForms.js';
import { DEFAULT_RATES, type Degradation, type DegradationKind, type DegradationRates } from './degradations.js';
import { GrammarValues, type SchemaEnforcement } from './grammarValues.js';
import { at, batchItem, emptied, hasNumericId, jsonPath, setAt, sites, type Path } from './replyPaths.js';

export { DEFAULT_RATES, type Degradation, type DegradationKind, type DegradationRates } from './degradations.js';

/**
 * A test model that answers like a small real one: it asks a cooperative model (a ScriptedLlm
 * with corpus rules, so the content stays meaningful) and degrades the reply the way Qwen3-4B or
 * a 4B laptop model does, seeded so a failing seed reproduces:
 * - batches (any array in a reply) with an item dropped, one item written twice in place of
 *   another, or two items swapped;
 * - names in another language ("Ulisse" for "Odysseus") or with a "(Type)" suffix;
 * - a text asked for in English left in its source language (in a batched Preprocess reply, the
 *   entry's own passage: sourceText in degradedForms.ts);
 * - placeholders spelled `X`, `[X]`, `<X>`, `?` or "unknown" instead of `?X`;
 * - citations glued to words ("Penelope[1]."), a sentence of reasoning before the answer, empty
 *   strings and very long (rambling) strings;
 * - reasoning tokens spent before the answer (a thinking model), budgeted as node-llama-cpp
 *   budgets them under LlamaCppLlm (their own thought budget, not the answer's: `#thinkingTokens`).
 * Every reply still passes the call's zod schema: a degradation it rejects is not made. What the
 * model may write where zod accepts more than the grammar (a content key that `keyOneOf` holds to
 * the batch's names) depends on `schema`: under a grammar, a degraded value at a field whose values
 * the grammar lists comes out as another of them, the neighbouring item's (`wrongAllowedValue`); an
 * endpoint that ignores the schema writes the degraded value itself. Limits are a real model's: tokens are counted with a real tokenizer
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
  /**
   * `grammar`: a local model under node-llama-cpp, which writes only the values a field's `enum` or
   * `const` allows (the wrong one, maybe); `ignored`: an endpoint that does not enforce the
   * schema, held only by the zod check after it. See {@link SchemaEnforcement}. Default: `grammar`,
   * what the local runtime does (LlamaCppLlm holds every structured call to its grammar); a test
   * of an inference server's behaviour asks for `ignored`.
   */
  schema?: SchemaEnforcement;
}

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
   * undone (the model could not have written it, or the caller's check would refuse it anyway).
   */
  #degradeJson(prompt: string, value: unknown, schema: z.ZodType): unknown {
    const grammar = (this.#options.schema ?? 'grammar') === 'grammar' ? new GrammarValues(schema) : null;
    const unwritable = grammar?.violation(value);
    if (unwritable)
      throw new Error(
        `UncooperativeLlm: the cooperative model wrote ${JSON.stringify(unwritable.written)} at ${jsonPath(unwritable.path)} of ${prompt}, which the grammar does not allow (${JSON.stringify(unwritable.allowed)})`,
      );
    let reply = structuredClone(value);
    const attempt = (
      kind: DegradationKind,
      path: Path,
      change: (reply: unknown) => void,
      itemAt: Path = path,
    ): void => {
      let next = structuredClone(reply);
      const item = batchItem(reply, itemAt);
      change(next);
      const forbidden = grammar?.violation(next);
      if (forbidden) {
        // Where the grammar lists a field's values, a model that miscopies or loses the thread there
        // still writes one of them: the neighbouring item's. Other changes it does not let it make,
        // nor a score above the top one: a lenient judge capped there writes the top score, not a lower one.
        const wrong =
          kind !== 'inflatedScore' && jsonPath(forbidden.path) === jsonPath(path)
            ? grammar!.wrongButAllowed(reply, path)
            : undefined;
        if (wrong === undefined) return;
        next = structuredClone(reply);
        setAt(next, path, wrong);
        kind = 'wrongAllowedValue';
      }
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
      const source = sourceText(prompt, this.#variables, key, parent);
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

  /** Free text of a text call: reasoning first, glued citations, rambling, or nothing. */
  #degradeText(prompt: string, at: string, text: string, glue: boolean): string {
    const source = sourceText(prompt, this.#variables);
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

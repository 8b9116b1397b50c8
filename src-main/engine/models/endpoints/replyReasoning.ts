import { templateHasThought, type ServerKind } from './serverFacts.js';

/** How a step without reasoning is asked of a server: the request fields, and whether the model still reasons. */
export interface ThinkingOff {
  fields: Record<string, unknown>;
  /** The template has no switch that stops the thought: the call keeps its reasoning budget. */
  stillReasons: boolean;
}

/**
 * The request fields that switch a thinking model's reasoning off, as each server takes them:
 * llama-server and vLLM hand `chat_template_kwargs` to the model's template, whose
 * `enable_thinking: false` (Qwen3) renders the empty thought; Ollama's OpenAI layer has no such
 * field and maps `reasoning_effort: "none"` to its `think: false`. Another server (LM Studio) is
 * sent nothing: no switch of its is known, so its model reasons as its template has it.
 * Where llama-server reports the template (`/props`) and it never reads `enable_thinking`, that
 * switch does nothing: gpt-oss's own is `reasoning_effort`, whose lowest value ("low") still
 * reasons; QwQ has none. Such a call is sent gpt-oss's "low" and keeps its reasoning budget.
 */
export function thinkingOff(kind: ServerKind, template?: string): ThinkingOff {
  switch (kind) {
    case 'llama-server':
    case 'vllm':
      if (template !== undefined && !template.includes('enable_thinking') && templateHasThought(template))
        return {
          fields: template.includes('reasoning_effort') ? { chat_template_kwargs: { reasoning_effort: 'low' } } : {},
          stillReasons: true,
        };
      return { fields: { chat_template_kwargs: { enable_thinking: false } }, stillReasons: false };
    case 'ollama':
      return { fields: { reasoning_effort: 'none' }, stillReasons: false };
    case 'other':
      return { fields: {}, stillReasons: false };
  }
}

const OPEN = '<think>';
const CLOSE = '</think>';

/**
 * Splits a streamed reply's `content` into the answer and an inline thought: a server that does
 * not parse reasoning (llama-server `--reasoning-format none`, LM Studio) passes `<think>…</think>`
 * through as text. A thought opens only at the reply's start (after white space), as thinking
 * templates write it; a tag cut over two chunks is held back until it is whole. A `</think>` with
 * no opener (the template opened the thought in the prompt) is handled by {@link finish}.
 */
export class InlineThoughtSplitter {
  #state: 'start' | 'thought' | 'afterThought' | 'answer' = 'start';
  #held = '';
  /** The whole thought, once closed or at the end. */
  thought = '';
  /** The whole answer so far. */
  answer = '';

  /** Feeds a piece of content; returns the part of it that is answer text (for streaming). */
  push(piece: string): string {
    this.#held += piece;
    let out = '';
    for (;;) {
      if (this.#state === 'start') {
        const lead = this.#held.trimStart();
        if (lead.startsWith(OPEN)) {
          this.#held = lead.slice(OPEN.length);
          this.#state = 'thought';
          continue;
        }
        if (lead === '' || OPEN.startsWith(lead)) return out;
        this.#state = 'answer';
        continue;
      }
      if (this.#state === 'thought') {
        const end = this.#held.indexOf(CLOSE);
        if (end < 0) {
          const keep = partialSuffix(this.#held, CLOSE);
          this.thought += this.#held.slice(0, this.#held.length - keep);
          this.#held = this.#held.slice(this.#held.length - keep);
          return out;
        }
        this.thought += this.#held.slice(0, end);
        this.#held = this.#held.slice(end + CLOSE.length);
        this.#state = 'afterThought';
        continue;
      }
      if (this.#state === 'afterThought') {
        // The blank lines between thought and answer are neither.
        this.#held = this.#held.trimStart();
        if (this.#held === '') return out;
        this.#state = 'answer';
        continue;
      }
      out += this.#held;
      this.answer += this.#held;
      this.#held = '';
      return out;
    }
  }

  /**
   * Ends the reply: what was held back is answer text (or thought, when the thought never
   * closed). An answer holding a `</think>` with no opener before it is a thought the prompt
   * opened: the text up to it becomes thought. Returns the final thought and answer.
   */
  finish(): { thought: string; answer: string } {
    if (this.#state === 'thought') this.thought += this.#held;
    else this.answer += this.#held;
    this.#held = '';
    const stray = this.answer.indexOf(CLOSE);
    if (stray >= 0 && !this.answer.slice(0, stray).includes(OPEN)) {
      this.thought += this.answer.slice(0, stray);
      this.answer = this.answer.slice(stray + CLOSE.length).trimStart();
    }
    return { thought: this.thought.trim(), answer: this.answer };
  }
}

/** Length of the longest end of `text` that begins `tag` (a tag cut by the chunking). */
function partialSuffix(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--)
    if (tag.startsWith(text.slice(text.length - n))) return n;
  return 0;
}

import type { ServerKind, TemplateReading } from './serverFacts.js';

/** How a step without reasoning is asked of a server: the request fields, and whether the model still reasons. */
export interface ThinkingOff {
  fields: Record<string, unknown>;
  /** The template has no switch that stops the thought: the call keeps its reasoning budget. */
  stillReasons: boolean;
}

/**
 * The request fields that switch a thinking model's reasoning off, as each server takes them and
 * as the model's template reads them (`reading`, where the server shows it: see ServerFacts):
 * - llama-server and vLLM hand `chat_template_kwargs` to the template, whose `enable_thinking:
 *   false` (Qwen3) renders the empty thought. A template that never reads it gets nothing from
 *   it: gpt-oss's switch is `reasoning_effort`, whose lowest value ("low") still reasons, so the
 *   call keeps its reasoning budget; llama-server takes it among the kwargs, vLLM as the request's
 *   own `reasoning_effort` (chat_completion/protocol.py at d5dba2d: `Literal["low", "medium",
 *   "high"]`, which `build_chat_params` hands the template and the Harmony renderer reads; "none"
 *   is refused). QwQ has no switch: nothing is sent, and the budget kept.
 * - Ollama's OpenAI layer has no kwargs and maps `reasoning_effort: "none"` to its `think: false`.
 * - Another server (LM Studio) is sent nothing: no switch of its is known, so its model reasons
 *   as its template has it.
 * With no reading (a template the server does not show) Qwen3's switch is sent.
 */
export function thinkingOff(kind: ServerKind, reading?: TemplateReading): ThinkingOff {
  switch (kind) {
    case 'llama-server':
    case 'vllm':
      if (reading?.hasThought && reading.reads !== 'enable_thinking') {
        const low =
          kind === 'vllm' ? { reasoning_effort: 'low' } : { chat_template_kwargs: { reasoning_effort: 'low' } };
        return { fields: reading.reads === 'reasoning_effort' ? low : {}, stillReasons: true };
      }
      return { fields: { chat_template_kwargs: { enable_thinking: false } }, stillReasons: false };
    case 'ollama':
      return { fields: { reasoning_effort: 'none' }, stillReasons: false };
    case 'other':
      return { fields: {}, stillReasons: false };
  }
}

const OPEN = '<think>';
const CLOSE = '</think>';
/** gpt-oss's analysis channel (Harmony), as llama-server leaves it in `content` with `--reasoning-format none`. */
const HARMONY_OPEN = '<|channel|>analysis<|message|>';
const HARMONY_CLOSE = '<|end|>';
/**
 * The final channel's header after the analysis message: llama.cpp's older gpt-oss parser left it
 * in `content` (`<|start|>assistant<|channel|>final<|message|>`, a schema's `<|constrain|>json`
 * inside); common/chat-parser.cpp at 05e5139 (`common_chat_parse_gpt_oss`) drops it.
 */
const HARMONY_FINAL = /^(?:<\|start\|>assistant)?<\|channel\|>final[^<]*(?:<\|constrain\|>[^<]*)?<\|message\|>/;

/**
 * Splits a streamed reply's `content` into the answer and an inline thought: a server that does
 * not parse reasoning (llama-server `--reasoning-format none`, LM Studio) passes `<think>…</think>`
 * through as text, and gpt-oss's analysis channel as `<|channel|>analysis<|message|>…<|end|>`
 * (the final channel's header after it, where the server leaves it, is neither thought nor
 * answer). A thought opens only at the reply's start (after white space), as thinking templates
 * write it; a tag cut over two chunks is held back until it is whole. A `</think>` with no opener
 * (the template opened the thought in the prompt) is handled by {@link finish}.
 */
export class InlineThoughtSplitter {
  #state: 'start' | 'thought' | 'afterThought' | 'answer' = 'start';
  #held = '';
  /** The tag that closes the open thought. */
  #close = CLOSE;
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
        const opener = [OPEN, HARMONY_OPEN].find((tag) => lead.startsWith(tag));
        if (opener) {
          this.#held = lead.slice(opener.length);
          this.#close = opener === OPEN ? CLOSE : HARMONY_CLOSE;
          this.#state = 'thought';
          continue;
        }
        if (lead === '' || OPEN.startsWith(lead) || HARMONY_OPEN.startsWith(lead)) return out;
        this.#state = 'answer';
        continue;
      }
      if (this.#state === 'thought') {
        const end = this.#held.indexOf(this.#close);
        if (end < 0) {
          const keep = partialSuffix(this.#held, this.#close);
          this.thought += this.#held.slice(0, this.#held.length - keep);
          this.#held = this.#held.slice(this.#held.length - keep);
          return out;
        }
        this.thought += this.#held.slice(0, end);
        this.#held = this.#held.slice(end + this.#close.length);
        this.#state = 'afterThought';
        continue;
      }
      if (this.#state === 'afterThought') {
        // The blank lines between thought and answer are neither, nor is a final channel's header.
        this.#held = this.#held.trimStart();
        if (this.#held === '') return out;
        if (this.#close === HARMONY_CLOSE) {
          const header = HARMONY_FINAL.exec(this.#held);
          if (header) this.#held = this.#held.slice(header[0].length);
          // A header still arriving: held until it is whole (it ends at <|message|>).
          else if (this.#held.startsWith('<|') && !this.#held.includes('<|message|>') && mayOpenHeader(this.#held))
            return out;
        }
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

/** Whether `text` (no `<|message|>` yet) can still become a final channel's header. */
function mayOpenHeader(text: string): boolean {
  const start = '<|start|>assistant';
  const channel = '<|channel|>final';
  const rest = text.startsWith(start) ? text.slice(start.length) : start.startsWith(text) ? '' : null;
  if (rest === null) return false;
  return rest === '' || channel.startsWith(rest) || rest.startsWith(channel);
}

/** Length of the longest end of `text` that begins `tag` (a tag cut by the chunking). */
function partialSuffix(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--)
    if (tag.startsWith(text.slice(text.length - n))) return n;
  return 0;
}

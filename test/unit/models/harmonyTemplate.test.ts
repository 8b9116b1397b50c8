import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HarmonyChatWrapper, JinjaTemplateChatWrapper, type ChatHistoryItem } from 'node-llama-cpp';

/**
 * gpt-oss's prompt as node-llama-cpp's HarmonyChatWrapper renders it, against the model's own
 * Jinja template (`../shared/data/chat-templates/openai-gpt-oss-120b.jinja`) rendered by
 * JinjaTemplateChatWrapper. Polyhop keeps the Harmony wrapper (README, "Reasoning under
 * grammars"): the two differ only in the developer message's heading and its trailing blank
 * line, while the template rendered by the Jinja wrapper opens the final channel in the prompt
 * and declares no analysis segment, so the model could not reason at all.
 */
const template = readFileSync(
  join(import.meta.dirname, '../../../../shared/data/chat-templates/openai-gpt-oss-120b.jinja'),
  'utf8',
);
const history: ChatHistoryItem[] = [
  { type: 'system', text: 'Reply with JSON only.' },
  { type: 'user', text: 'Who wrote it?' },
  { type: 'model', response: [] },
];
const dates = { todayDate: new Date('2026-12-02T12:00:00Z'), cuttingKnowledgeDate: new Date('2024-06-01T00:00:00Z') };

describe("gpt-oss: HarmonyChatWrapper against the model's own template", () => {
  const harmony = new HarmonyChatWrapper(dates);
  const jinja = new JinjaTemplateChatWrapper({ template });
  const rendered = (w: HarmonyChatWrapper | JinjaTemplateChatWrapper) =>
    w.generateContextState({ chatHistory: history }).contextText.toString();

  it('differ in the developer heading and the blank line before <|end|> only (besides the generation prompt)', () => {
    const own = rendered(jinja);
    const wrapped = rendered(harmony);
    expect(wrapped).toContain('<|start|>developer<|message|># Instruction\n\nReply with JSON only.<|end|>');
    expect(own).toContain('<|start|>developer<|message|># Instructions\n\nReply with JSON only.\n\n<|end|>');
    const normalised = wrapped
      .replace('# Instruction\n', '# Instructions\n')
      .replace('Reply with JSON only.<|end|>', 'Reply with JSON only.\n\n<|end|>');
    // The template's date line is strftime_now (today); the wrapper's the date it was given.
    const withoutDate = (s: string) => s.replace(/Current date: \d{4}-\d{2}-\d{2}/, 'Current date: D');
    expect(withoutDate(own).startsWith(withoutDate(normalised))).toBe(true);
  });

  it('the template through the Jinja wrapper cannot reason: the prompt opens the final channel and no analysis segment is declared', () => {
    expect(rendered(jinja).endsWith('<|start|>assistant<|channel|>final<|message|>')).toBe(true);
    expect(jinja.settings.segments?.thought).toBeUndefined();
    expect(rendered(harmony).endsWith('<|start|>assistant')).toBe(true);
    expect(harmony.settings.segments?.thought?.prefix?.toString()).toContain('<|channel|>analysis<|message|>');
  });
});

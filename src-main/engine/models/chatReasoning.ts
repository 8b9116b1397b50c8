import {
  GeneralChatWrapper,
  HarmonyChatWrapper,
  JinjaTemplateChatWrapper,
  LlamaText,
  QwenChatWrapper,
  resolveChatWrapper,
  type ChatWrapper,
  type GgufFileInfo,
  type LlamaModel,
  type Tokenizer,
} from 'node-llama-cpp';

/**
 * What a model's own chat template says about reasoning, and the chat wrapper that switches it
 * off. node-llama-cpp's wrappers declare a thought segment by family (QwenChatWrapper always has
 * `<think>`, the Jinja wrapper finds `<think>` in any Qwen tokenizer), so Qwen3-4B-Instruct-2507
 * would count as a thinking model; only the template tells. Its facts:
 * - `reasons`: the template writes the wrapper's thought opener (`<think>`, gpt-oss
 *   `<|channel|>analysis<|message|>`), so the model was trained to reason there;
 * - `switchable`: the template has the model's own switch (Qwen3 `enable_thinking`, gpt-oss
 *   `reasoning_effort`), which {@link ChatReasoning.off} renders; QwQ has none and always reasons.
 */
export interface ChatReasoning {
  /** node-llama-cpp's name of the wrapper that renders prompts, e.g. "Qwen", "Harmony", "JinjaTemplate". */
  readonly wrapperName: string;
  readonly reasons: boolean;
  readonly switchable: boolean;
  /** The thought segment opens with the response (the wrapper injects the opener): QwQ, Qwen "3.5". */
  readonly opensAtStart: boolean;
  /** The wrapper for calls whose step does not reason (undefined: reasoning cannot be switched off). */
  readonly off: ChatWrapper | undefined;
  /** One line for status screens: the wrapper and whether and how the model reasons. */
  readonly summary: string;
}

/**
 * The facts above for `wrapper` and a model's template. `model` is a loaded model, or, for a file
 * that is not loaded, its GGUF header (`readGgufFileInfo`): the verdict only reads the template;
 * the tokenizer is only needed by the switch-off wrapper a loaded model's calls use.
 */
export function chatReasoning(
  wrapper: ChatWrapper,
  model: LlamaModel | { fileInfo: GgufFileInfo; tokenizer?: Tokenizer },
): ChatReasoning {
  const template = model.fileInfo.metadata.tokenizer?.chat_template ?? '';
  const thought = wrapper.settings.segments?.thought;
  const opener = thought && LlamaText.isLlamaText(thought.prefix) ? thought.prefix.toString().trim() : '';
  // A prefix of type "openedOnStart" (Jinja wrapper): the template opens the segment in the prompt itself.
  const reasons = thought !== undefined && (opener === '' ? template !== '' : template.includes(opener));
  const off = reasons ? thinkingOff(wrapper, template, model) : undefined;
  const opensAtStart = thought?.openOnResponseStart === true || (opener === '' && thought !== undefined);
  const how = !reasons
    ? 'does not reason (its template has no reasoning segment)'
    : off
      ? `reasons (${opener || 'thought segment'}); steps without reasoning switch it off with the template's ` +
        (template.includes('enable_thinking') ? 'enable_thinking' : 'reasoning_effort')
      : `always reasons (${opener || 'thought segment'}; its template has no switch to turn it off)`;
  return {
    wrapperName: wrapperLabel(wrapper),
    reasons,
    switchable: off !== undefined,
    opensAtStart,
    off,
    summary: `chat wrapper ${wrapperLabel(wrapper)}; ${how}`,
  };
}

/**
 * The chat wrapper for a model: node-llama-cpp's resolution from its template, except that a Qwen
 * template whose generation prompt already opens `<think>` (QwQ) gets QwenChatWrapper's "3.5"
 * variation, which opens the thought segment at response start: under variation 3 the model's
 * thought came back as answer text, closed by a stray `</think>`, with no reasoning counted.
 */
export function resolveModelChatWrapper(model: LlamaModel): ChatWrapper {
  return withThoughtAtStart(resolveChatWrapper(model), model.fileInfo);
}

/**
 * The chat wrapper {@link resolveModelChatWrapper} gives a model file that is not loaded, from its
 * GGUF header alone (`readGgufFileInfo` reads no weights): the same resolution without the
 * tokenizer, which node-llama-cpp only uses to tokenize the rendered test chats it compares
 * (`test/unit/models/fileChatWrapper.test.ts` checks it agrees with the loaded model's for every
 * catalog template).
 */
export function resolveFileChatWrapper(fileInfo: GgufFileInfo, filename: string): ChatWrapper {
  const tokens = fileInfo.metadata.tokenizer?.ggml?.tokens;
  const bosId = fileInfo.metadata.tokenizer?.ggml?.bos_token_id;
  const bosString = Array.isArray(tokens) && typeof bosId === 'number' ? tokens[bosId] : undefined;
  const resolved = resolveChatWrapper({
    fileInfo,
    filename,
    ...(typeof bosString === 'string' ? { bosString } : {}),
    warningLogs: false,
  });
  return withThoughtAtStart(resolved ?? new GeneralChatWrapper(), fileInfo);
}

function withThoughtAtStart(wrapper: ChatWrapper, fileInfo: GgufFileInfo): ChatWrapper {
  const template = fileInfo.metadata.tokenizer?.chat_template ?? '';
  if (wrapper instanceof QwenChatWrapper && wrapper.variation === '3' && OPENS_THINK_IN_PROMPT.test(template))
    return new QwenChatWrapper({ variation: '3.5', keepOnlyLastThought: wrapper.keepOnlyLastThought });
  return wrapper;
}

/** The template's generation prompt ends with `<think>` opened: `{{- '<|im_start|>assistant\n<think>\n' }}`. */
const OPENS_THINK_IN_PROMPT = /add_generation_prompt\s*%\}\s*\{\{-?\s*'<\|im_start\|>assistant\\n<think>\\n'/;

function wrapperLabel(wrapper: ChatWrapper): string {
  return wrapper instanceof QwenChatWrapper
    ? `${wrapper.wrapperName} (variation ${wrapper.variation})`
    : wrapper.wrapperName;
}

/**
 * The same wrapper with the template's own switch set to "no reasoning": Qwen3's
 * `enable_thinking: false` renders an empty `<think>\n\n</think>\n\n` before the answer, which
 * QwenChatWrapper's `thoughts: "discourage"` writes and the Jinja wrapper gets from the template;
 * gpt-oss's is `Reasoning: low` (the grammar's response prefix then opens the final channel).
 */
function thinkingOff(
  wrapper: ChatWrapper,
  template: string,
  model: { tokenizer?: Tokenizer },
): ChatWrapper | undefined {
  if (wrapper instanceof HarmonyChatWrapper) {
    if (!template.includes('reasoning_effort')) return undefined;
    return new HarmonyChatWrapper({
      modelIdentity: wrapper.modelIdentity,
      cuttingKnowledgeDate: wrapper.cuttingKnowledgeDate ?? null,
      todayDate: wrapper.todayDate,
      reasoningEffort: 'low',
      keepOnlyLastThought: wrapper.keepOnlyLastThought,
    });
  }
  if (!template.includes('enable_thinking')) return undefined;
  if (wrapper instanceof QwenChatWrapper)
    return new QwenChatWrapper({
      variation: wrapper.variation,
      keepOnlyLastThought: wrapper.keepOnlyLastThought,
      thoughts: 'discourage',
    });
  if (wrapper instanceof JinjaTemplateChatWrapper)
    return new JinjaTemplateChatWrapper({
      template: wrapper.template,
      ...(model.tokenizer ? { tokenizer: model.tokenizer } : {}),
      reasoning: false,
    });
  return undefined;
}

import { APIError, type OpenAI } from 'openai';
import { throwIfAborted } from '../../base/abort.js';
import { PolyhopError } from '../../base/errors.js';
import type { EndpointConfig } from './EndpointConfig.js';
import { serverRoot } from './endpointClient.js';
import { endpointError } from './endpointErrors.js';
import { TokenEstimate } from './TokenEstimate.js';

/**
 * Which server answers, as far as it says: llama-server has `/props`, vLLM lists `max_model_len`
 * (and `owned_by: "vllm"`), Ollama answers its native `/api/show`; anything else (LM Studio) is
 * `other`. It decides how the thinking switch is sent (see thinkingSwitch).
 */
export type ServerKind = 'llama-server' | 'vllm' | 'ollama' | 'other';

/** What a server says about itself and the model it serves. */
export interface ServerFacts {
  /** The `/models` id the configured model resolves to. */
  servedModel: string;
  /** Tokens of one call's context, when the server reports them (vLLM `max_model_len`, llama-server `/props`). */
  contextTokens: number | undefined;
  kind: ServerKind;
  /** The model's context as Ollama's `/api/show` reports it (`<arch>.context_length`); Ollama only. */
  modelContextTokens?: number;
  /** llama-server's chat template (`/props` `chat_template`), when it reports one. */
  chatTemplate?: string;
  /**
   * What the chat template reads, where the server shows it: llama-server's `/props` template,
   * vLLM's rendering of a chat by `/tokenize` (see {@link TemplateReading}). It decides which
   * switch a step without reasoning is sent (replyReasoning.ts `thinkingOff`).
   */
  templateReading?: TemplateReading;
  /**
   * Whether the served model reasons, where the server tells before any reply: llama-server's
   * `/props` template has a thought segment, Ollama's `/api/show` lists the `thinking` capability.
   * Undefined where the server does not say (vLLM: its reasoning parser is a launch flag no route
   * reports; LM Studio): then only a reply with a thought tells.
   */
  reasons?: boolean;
  /**
   * Requests the server runs at once, when it says: llama-server's `/props` `total_slots` (its
   * `--parallel`; auto gives 4, tools/server/server.cpp). Ollama's OLLAMA_NUM_PARALLEL and vLLM's
   * `--max-num-seqs` are not reported: the configured concurrency stands there.
   */
  slots?: number;
}

/**
 * Whether a chat template has a thought segment: Qwen3's and QwQ's `<think>`…`</think>` (Ollama's
 * own test, server/images.go chatTemplateHasThinkingSupport), gpt-oss's analysis channel.
 * Qwen3-4B-Instruct-2507's template has neither.
 */
export function templateHasThought(template: string): boolean {
  return (template.includes('<think>') && template.includes('</think>')) || template.includes('<|channel|>analysis');
}

/**
 * Asks the server which model it serves: the configured name when `/models` lists it, else the only
 * model listed (llama-server serves one model whatever the request names). Several models and
 * none of them configured is a clear error, as is an unreachable server (an endpoint failure).
 */
export async function serverFacts(client: OpenAI, config: EndpointConfig, signal?: AbortSignal): Promise<ServerFacts> {
  let listed: (OpenAI.Models.Model & { max_model_len?: unknown; owned_by?: unknown })[];
  try {
    listed = [];
    for await (const model of client.models.list(signal ? { signal } : {})) listed.push(model);
  } catch (error) {
    throw endpointError(error, config, 'listing models', signal);
  }
  const entry = listed.find((m) => m.id === config.model) ?? (listed.length === 1 ? listed[0] : undefined);
  if (!entry) {
    throw new PolyhopError(
      'BAD_INPUT',
      `Endpoint ${config.id} (${config.baseUrl}) does not serve model "${config.model}"; it serves: ${listed.map((m) => m.id).join(', ') || 'nothing'}`,
      {
        details: { endpoint: config.id, servedModels: listed.map((m) => m.id) },
      },
    );
  }
  if (typeof entry.max_model_len === 'number' || entry.owned_by === 'vllm') {
    const reading = await vllmTemplateReading(client, config, entry.id, signal);
    return {
      servedModel: entry.id,
      contextTokens: typeof entry.max_model_len === 'number' ? entry.max_model_len : undefined,
      kind: 'vllm',
      ...(reading ? { templateReading: reading } : {}),
    };
  }
  const props = await llamaServerProps(client, config, signal);
  if (props)
    return {
      servedModel: entry.id,
      contextTokens: props.contextTokens,
      kind: 'llama-server',
      ...(props.chatTemplate
        ? {
            chatTemplate: props.chatTemplate,
            templateReading: readTemplate(props.chatTemplate),
            reasons: templateHasThought(props.chatTemplate),
          }
        : {}),
      ...(props.slots !== undefined ? { slots: props.slots } : {}),
    };
  const ollama = await ollamaShow(client, config, entry.id, signal);
  // Ollama's context_length is the model's; it runs with its own num_ctx and truncates prompts
  // silently, so generation keeps no context check there (embeddings use it as their window).
  if (ollama !== null)
    return {
      servedModel: entry.id,
      contextTokens: undefined,
      kind: 'ollama',
      ...(ollama.contextLength !== undefined ? { modelContextTokens: ollama.contextLength } : {}),
      ...(ollama.capabilities ? { reasons: ollama.capabilities.includes('thinking') } : {}),
    };
  return { servedModel: entry.id, contextTokens: undefined, kind: 'other' };
}

/**
 * What a chat template does with the thought: whether the model reasons under it, and the switch
 * it reads (Qwen3 `enable_thinking`, gpt-oss `reasoning_effort`; QwQ none, it always reasons).
 */
export interface TemplateReading {
  hasThought: boolean;
  reads: 'enable_thinking' | 'reasoning_effort' | null;
}

/** What a template's source reads (llama-server reports the source in `/props`). */
export function readTemplate(template: string): TemplateReading {
  return {
    hasThought: templateHasThought(template),
    reads: template.includes('enable_thinking')
      ? 'enable_thinking'
      : template.includes('reasoning_effort')
        ? 'reasoning_effort'
        : null,
  };
}

/**
 * What vLLM's chat template reads, from how it renders one user message: vLLM reports no template,
 * but its `POST /tokenize` renders a chat as `/v1/chat/completions` does, `chat_template_kwargs`
 * included, and can return the token strings (serve/tokenize/protocol.py, TokenizeChatRequest:
 * `messages`, `add_generation_prompt`, `return_token_strs`, `chat_template_kwargs`). A kwarg the
 * template reads changes the rendering (Qwen3's `enable_thinking: false` adds the empty thought,
 * gpt-oss's `reasoning_effort: "low"` its "Reasoning: low"); a rendering that ends in `<think>`
 * opens the thought in the prompt (QwQ). Undefined when the route does not render chats (an older
 * vLLM): the switch then stays Qwen3's.
 */
async function vllmTemplateReading(
  client: OpenAI,
  config: EndpointConfig,
  model: string,
  signal?: AbortSignal,
): Promise<TemplateReading | undefined> {
  const render = async (kwargs?: Record<string, unknown>): Promise<{ ids: string; strs: string[] } | undefined> => {
    const reply = await client.post<{ tokens?: unknown; token_strs?: unknown }>(
      `${serverRoot(config.baseUrl)}/tokenize`,
      {
        body: {
          model,
          messages: [{ role: 'user', content: 'Hi' }],
          add_generation_prompt: true,
          return_token_strs: true,
          ...(kwargs ? { chat_template_kwargs: kwargs } : {}),
        },
        ...(signal ? { signal } : {}),
      },
    );
    if (!Array.isArray(reply.tokens) || !Array.isArray(reply.token_strs)) return undefined;
    return { ids: JSON.stringify(reply.tokens), strs: reply.token_strs.map(String) };
  };
  try {
    const [plain, noThinking, lowEffort] = await Promise.all([
      render(),
      render({ enable_thinking: false }),
      render({ reasoning_effort: 'low' }),
    ]);
    if (!plain || !noThinking || !lowEffort) return undefined;
    // Byte-level BPE token strings spell white space as Ġ (space) and Ċ (newline).
    const last = plain.strs.filter((t) => t.replace(/[ĠĊ\s]/gu, '') !== '').at(-1);
    const reads =
      noThinking.ids !== plain.ids ? 'enable_thinking' : lowEffort.ids !== plain.ids ? 'reasoning_effort' : null;
    return { hasThought: reads !== null || last === '<think>', reads };
  } catch (error) {
    refuseAuthFailure(error, config, 'rendering a chat by /tokenize', signal);
    return undefined;
  }
}

/** llama-server's per-slot context and chat template from `/props`; null when the server has no such route. */
async function llamaServerProps(
  client: OpenAI,
  config: EndpointConfig,
  signal?: AbortSignal,
): Promise<{ contextTokens: number | undefined; chatTemplate: string | undefined; slots: number | undefined } | null> {
  try {
    const props = await client.get<{
      n_ctx?: unknown;
      default_generation_settings?: { n_ctx?: unknown };
      chat_template?: unknown;
      total_slots?: unknown;
    }>(`${serverRoot(config.baseUrl)}/props`, signal ? { signal } : {});
    if (!props || typeof props !== 'object') return null;
    const nCtx = props.default_generation_settings?.n_ctx ?? props.n_ctx;
    const slots = props.total_slots;
    return {
      contextTokens: typeof nCtx === 'number' && nCtx > 0 ? nCtx : undefined,
      chatTemplate: typeof props.chat_template === 'string' ? props.chat_template : undefined,
      slots: typeof slots === 'number' && Number.isInteger(slots) && slots > 0 ? slots : undefined,
    };
  } catch (error) {
    refuseAuthFailure(error, config, 'reading /props', signal);
    // A loading llama-server lists its model but answers 503 "Loading model" here
    // (server-http.cpp middleware_server_state): the server is not ready, not without the route.
    if (error instanceof APIError && error.status === 503) throw endpointError(error, config, 'reading /props', signal);
    return null;
  }
}

/**
 * Rethrows a refused key (401, 403) or a cancel; any other failure of a server's own route means
 * the server does not have it. llama-server serves `/v1/models` without a key
 * (tools/server/server-http.cpp:121-127 at ggml-org/llama.cpp aa6192d) but nothing else, so a
 * wrong key passes the model list and shows first here.
 */
function refuseAuthFailure(error: unknown, config: EndpointConfig, what: string, signal?: AbortSignal): void {
  throwIfAborted(signal);
  if (error instanceof APIError && (error.status === 401 || error.status === 403))
    throw endpointError(error, config, what, signal);
}

/**
 * Ollama's `POST /api/show` (beside `/v1`): the model's `<arch>.context_length` from `model_info`
 * and its `capabilities` (server/routes.go GetModelInfo, `Capabilities: m.Capabilities()`; older
 * Ollama sends none). Null when the server has no such route (not Ollama).
 */
async function ollamaShow(
  client: OpenAI,
  config: EndpointConfig,
  model: string,
  signal?: AbortSignal,
): Promise<{ contextLength: number | undefined; capabilities: string[] | undefined } | null> {
  try {
    const shown = await client.post<{ model_info?: Record<string, unknown>; capabilities?: unknown }>(
      `${serverRoot(config.baseUrl)}/api/show`,
      { body: { model }, ...(signal ? { signal } : {}) },
    );
    const info = shown?.model_info;
    if (!info || typeof info !== 'object') return null;
    const arch = info['general.architecture'];
    const length =
      typeof arch === 'string'
        ? info[`${arch}.context_length`]
        : Object.entries(info).find(([k]) => k.endsWith('.context_length'))?.[1];
    const capabilities = Array.isArray(shown.capabilities)
      ? shown.capabilities.filter((c): c is string => typeof c === 'string')
      : undefined;
    return { contextLength: typeof length === 'number' && length > 0 ? length : undefined, capabilities };
  } catch (error) {
    refuseAuthFailure(error, config, 'reading /api/show', signal);
    return null;
  }
}

/** A sample of Latin-script languages, digits and punctuation, for calibrating the Latin class of a server's token estimate. */
const CALIBRATION_TEXT =
  'Odysseus was the king of Ithaca. Penelope era la moglie di Ulisse. Télémaque chercha son père à Pylos. ' +
  'Telémaco buscó a su padre. 1873, 42 km; "quoted" (text) — dash.';

/**
 * The server's token estimate: calibrated on its `POST /tokenize` beside `/v1` (llama-server reads
 * `content`, vLLM `model` and `prompt`; both answer `tokens`), or the per-script defaults when the
 * server has no tokenizer route (Ollama, LM Studio).
 */
export async function measureTokenEstimate(
  client: OpenAI,
  config: EndpointConfig,
  signal?: AbortSignal,
  model?: string,
): Promise<TokenEstimate> {
  try {
    const body = { content: CALIBRATION_TEXT, prompt: CALIBRATION_TEXT, ...(model ? { model } : {}) };
    const reply = await client.post<{ tokens?: unknown[] }>(`${serverRoot(config.baseUrl)}/tokenize`, {
      body,
      ...(signal ? { signal } : {}),
    });
    const count = Array.isArray(reply.tokens) ? reply.tokens.length : 0;
    return count > 0 ? TokenEstimate.calibrated(CALIBRATION_TEXT, count) : new TokenEstimate();
  } catch (error) {
    refuseAuthFailure(error, config, 'tokenizing', signal);
    return new TokenEstimate();
  }
}

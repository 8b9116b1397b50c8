import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Template } from '@huggingface/jinja';
import type { AddressInfo } from 'node:net';
import { NgramEmbedder } from './NgramEmbedder.js';
import { embedReply } from './flavouredEmbeddings.js';
import { TOY_TOKEN, modelCard, notFound, readJson, reply, toyTokens, vllmError } from './flavouredWire.js';

export { embeddingInputTokens, toyTokens } from './flavouredWire.js';

/**
 * The protocol of real inference servers around a scripted model: what llama-server, vLLM, Ollama
 * and LM Studio do with reasoning, the thinking switch, embedding windows and context limits, each
 * modelled on the server's own source (cited where modelled; line numbers where the source tools
 * gave them, else the function and the quoted text, which can be searched for):
 * - llama.cpp (ggml-org/llama.cpp): tools/server/server-context.cpp (lines at fb40266),
 *   common/chat.cpp (lines at 85c9a50), both counted from the read_file text (its length matched);
 *   where wordings differ, the llama.cpp node-llama-cpp 3.21.1 ships (llama/gitRelease.bundle);
 * - vLLM: vllm/entrypoints/openai/chat_completion/protocol.py (lines at vllm-project/vllm d5dba2d),
 *   vllm/renderers/params.py (lines at 1aa021e), vllm/entrypoints/serve/tokenize/protocol.py (at 030ea52);
 * - Ollama (mirror fb30760): openai/openai.go, middleware/openai.go, server/routes.go, server/sched.go;
 * - LM Studio (closed source): its refusals as users report them (lmstudio-ai/lmstudio-bug-tracker #237, #546).
 * The model is a script (a thought and an answer); tokens are words and punctuation marks
 * ({@link toyTokens}), the same for the server's `/tokenize`, its limits and its `usage`.
 */
export type ServerFlavour = 'llama-server' | 'vllm' | 'ollama' | 'lmstudio';

export interface ChatSeen {
  /** The request body as the server got it. */
  body: Record<string, unknown>;
  /** Whether the model was let to reason (its template's switch on, and no grammar from the first token). */
  thought: boolean;
}

export interface FlavouredServerOptions {
  flavour: ServerFlavour;
  /** The id `/v1/models` lists. */
  model: string;
  /**
   * What the model writes before its answer when its template lets it reason; null for a model
   * that does not reason. Default null.
   */
  thought?: string | null;
  /** The model's answer to a request (JSON text when the request asks for a schema). */
  answer?: (body: Record<string, unknown>) => string;
  /** llama-server `--reasoning-format`: `deepseek` puts the thought in `reasoning_content`, `none` leaves it in `content`. Default deepseek. */
  reasoningFormat?: 'deepseek' | 'none';
  /** Tokens of the context: llama-server's per-slot n_ctx, vLLM's max_model_len, Ollama's `<arch>.context_length`. Default 4096. */
  contextTokens?: number;
  /** llama-server's physical batch (`--ubatch-size`, default 512): an embedding input must fit it whole. */
  ubatch?: number;
  /** Serves `/v1/embeddings` (hashed trigram vectors of what it embedded). */
  embeddings?: boolean;
  /**
   * The model's chat template: llama-server reports it in `/props`, Ollama derives its `thinking`
   * capability from it. Default: ChatML, with Qwen3's `<think>`…`</think>` when `thought` is set.
   */
  chatTemplate?: string;
  /**
   * The template opens the thought in the prompt (QwQ, Qwen3.5: the generation prompt ends in
   * `<think>\n`): the model writes its thought and `</think>` only, and the servers' reasoning
   * parsers take everything before `</think>` as reasoning (llama.cpp's "thinking forced open").
   */
  opensThoughtInPrompt?: boolean;
  /**
   * Under a JSON schema, llama-server files the JSON of a template that opens the thought in the
   * prompt as `reasoning_content` (newer llama.cpp and KoboldCpp: llama.cpp issues #20345, #22537,
   * SubtitleEdit #15010). At llama.cpp 85c9a50 the schema's handler (common_chat_params_init_without_tools,
   * common/chat.cpp:2593-2607) sets no `thinking_forced_open`, so the JSON is `content`. Default false.
   */
  schemaReplyAsReasoning?: boolean;
  /**
   * The key it was started with (`--api-key`). llama-server checks it on every route but
   * `/health`, `/v1/health`, `/models`, `/v1/models` and the web UI (tools/server/server-http.cpp
   * at ggml-org/llama.cpp aa6192d: `middleware_validate_api_key`, its public set at :121-127 (which
   * also holds Ollama's `/api/tags`), the 401 "Invalid API Key", `authentication_error`, at
   * :158-168; later versions name the set `get_public_endpoints`); vLLM on every route under `/v1`
   * (its API server's auth middleware).
   */
  apiKey?: string;
  /**
   * llama-server's `total_slots` in `/props` (`--parallel`). Default 4: `-np` defaults to auto,
   * which the server turns into 4 slots with a unified KV cache (tools/server/server.cpp,
   * "n_parallel is set to auto, using n_parallel = 4").
   */
  slots?: number;
  /** Port to listen on. Default: any free one. */
  port?: number;
  /**
   * Ollama's `num_ctx` (its default context, OLLAMA_CONTEXT_LENGTH, 4096): a chat prompt longer is
   * cut to it without an error, keeping the first 4 tokens and the end (runner: "truncating input
   * prompt" with keep=4), and `usage.prompt_tokens` counts what was kept. Default 4096.
   */
  numCtx?: number;
  /** Time from the request to the reply's first chunk (a queue, a long prompt): llama-server sends nothing before it; vLLM sends its headers at once. Default 0. */
  firstByteDelayMs?: number;
  /**
   * Time each work request (chat, embedding) holds one of the `slots`; one that finds them all
   * taken waits its turn and is sent nothing meanwhile, as llama-server queues a task until a slot
   * frees (tools/server/server-queue.cpp, `queue_tasks_deferred`) and Ollama's scheduler queues
   * requests behind its one runner (server/sched.go, `pendingReqCh`). Default 0: no queue.
   */
  workMs?: number;
  /** An embedding reply sends its headers and half its body, then nothing for this long. Default 0. */
  embeddingBodyStallMs?: number;
  /**
   * llama-server words its length refusals as at llama.cpp fb40266 (tools/server/server-context.cpp
   * :2044-2062): "input is too large to process. increase the physical batch size", "the request
   * exceeds the available context size, try increasing it", with no token counts. Default false:
   * the wording with counts of the llama.cpp node-llama-cpp 3.21.1 ships (see flavouredEmbeddings.ts).
   */
  plainRefusals?: boolean;
}

const CHATML =
  '{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}';
const CHATML_THINKING = CHATML.replace(
  'assistant\n{% endif %}',
  'assistant\n{% if enable_thinking is false %}<think>\n\n</think>\n\n{% endif %}{% endif %}',
);

/** A busy answer; `message` replaces Ollama's wording of a 503 (llama-server and proxies word theirs otherwise). */
export interface BusyReply {
  status: 429 | 503;
  retryAfter?: string;
  message?: string;
}

export interface FlavouredServer {
  baseUrl: string;
  chats: ChatSeen[];
  /** Token counts of every embedding input the server embedded (after its own truncation). */
  embedded: number[];
  /** Inputs Ollama cut to its context without saying so. */
  truncatedInputs: number;
  /** Embedding and chat requests refused. */
  refusals: number;
  /**
   * The next `times` work requests are answered busy: Ollama's 503 when its queue is full
   * (server/sched.go ErrMaxQueue "server busy, please try again.  maximum pending requests
   * exceeded", answered 503 by routes.go handleScheduleError), or a 429 with `Retry-After`
   * (seconds or an HTTP date) as a rate-limiting proxy in front of any of them sends.
   */
  busy: (times: number, reply?: BusyReply) => void;
  /** Drops the busy answers not given yet: the next work request is served (the queue drained). */
  notBusy: () => void;
  /**
   * Until `ready()`, llama-server answers its routes 503 "Loading model" (`unavailable_error`),
   * before any key check (server-http.cpp at aa6192d: `middleware_server_state` :175-201, run
   * before the key's middleware at :214-219), as it does while it loads. The source lets
   * `/models`, `/v1/models` and `/api/tags` through while loading (:182-184), and so does this double.
   */
  loading: () => void;
  ready: () => void;
  /** Authorization headers of every request, by path (`POST /v1/chat/completions Bearer …`). */
  requests: string[];
  close: () => Promise<void>;
}

/** A template's rendering as tokens: its special tokens (`<|im_start|>`, `<think>`) whole, the rest as {@link toyTokens}. */
function templateTokens(rendered: string): string[] {
  return rendered.split(/(<\|[a-z_]+\|>|<\/?think>)/u).flatMap((part, i) => (i % 2 === 1 ? [part] : toyTokens(part)));
}

/** Token ids for token strings, one per distinct string. */
class Vocabulary {
  readonly #ids = new Map<string, number>();
  id(token: string): number {
    let id = this.#ids.get(token);
    if (id === undefined) this.#ids.set(token, (id = this.#ids.size));
    return id;
  }
}

/** Tokens a chat template adds around the messages. */
const TEMPLATE_TOKENS = 8;

export async function startFlavouredServer(options: FlavouredServerOptions): Promise<FlavouredServer> {
  const { flavour, model } = options;
  const context = options.contextTokens ?? 4096;
  const ubatch = options.ubatch ?? 512;
  const vectors = new NgramEmbedder(64);
  const template = options.chatTemplate ?? (options.thought != null ? CHATML_THINKING : CHATML);
  const vocabulary = new Vocabulary();
  const busyReplies: BusyReply[] = [];
  const slots = { free: options.slots ?? 4, waiting: [] as (() => void)[] };
  let loading = false;
  const state: Omit<FlavouredServer, 'baseUrl' | 'close'> = {
    chats: [],
    embedded: [],
    truncatedInputs: 0,
    refusals: 0,
    requests: [],
    busy: (times, busyReply = { status: 503 }) => {
      for (let i = 0; i < times; i++) busyReplies.push(busyReply);
    },
    notBusy: () => void busyReplies.splice(0),
    loading: () => void (loading = true),
    ready: () => void (loading = false),
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const body = req.method === 'POST' ? await readJson(req) : {};
    const authorization = req.headers.authorization ?? '';
    state.requests.push(`${req.method} ${path} ${authorization}`);
    if (loading && flavour === 'llama-server' && !['/models', '/v1/models', '/api/tags'].includes(path))
      return reply(res, 503, { error: { message: 'Loading model', type: 'unavailable_error', code: 503 } });
    if (options.apiKey !== undefined && needsKey(flavour, path) && authorization !== `Bearer ${options.apiKey}`)
      return reply(res, 401, { error: { message: 'Invalid API Key', type: 'authentication_error', code: 401 } });
    const work = req.method === 'POST' && (path === '/v1/chat/completions' || path === '/v1/embeddings');
    const busyReply = work ? busyReplies.shift() : undefined;
    if (busyReply) {
      res.setHeader('content-type', 'application/json');
      if (busyReply.retryAfter !== undefined) res.setHeader('retry-after', busyReply.retryAfter);
      return reply(
        res,
        busyReply.status,
        busyReply.status === 503
          ? {
              error: {
                message: busyReply.message ?? 'server busy, please try again.  maximum pending requests exceeded',
                type: 'api_error',
              },
            }
          : { error: { message: 'Too Many Requests', type: 'rate_limit_error', code: 429 } },
      );
    }
    if (req.method === 'GET' && path === '/v1/models')
      return reply(res, 200, { object: 'list', data: [modelCard(flavour, model, context)] });
    // llama-server answers `/props` with the slot's n_ctx, its slots and the model's chat template
    // (server-context.cpp at fb40266, get_props :3171-3213: `n_ctx` :3182 from get_slot_n_ctx
    // :2712-2714, `total_slots` :3189, `chat_template` :3200); the others have no such route.
    if (req.method === 'GET' && path === '/props' && flavour === 'llama-server')
      return reply(res, 200, {
        default_generation_settings: { n_ctx: context },
        total_slots: options.slots ?? 4,
        chat_template: template,
      });
    if (req.method === 'POST' && path === '/tokenize' && flavour === 'vllm' && Array.isArray(body.messages)) {
      // vLLM renders a chat as its chat completions do, with the request's chat_template_kwargs,
      // and gives the token strings when asked (serve/tokenize/protocol.py at 030ea52,
      // TokenizeChatRequest: messages, add_generation_prompt, return_token_strs,
      // chat_template_kwargs, build_chat_params; TokenizeResponse: count, max_model_len, tokens, token_strs).
      const rendered = new Template(template).render({
        messages: body.messages,
        add_generation_prompt: body.add_generation_prompt !== false,
        ...(body.chat_template_kwargs as Record<string, unknown> | undefined),
      });
      const strs = templateTokens(rendered);
      return reply(res, 200, {
        count: strs.length,
        max_model_len: context,
        tokens: strs.map((t) => vocabulary.id(t)),
        ...(body.return_token_strs === true ? { token_strs: strs } : {}),
      });
    }
    if (req.method === 'POST' && path === '/tokenize') {
      // llama-server: {content} → {tokens}; vLLM (entrypoints/serve tokenize): {prompt} → {count, max_model_len, tokens}.
      if (flavour === 'llama-server')
        return reply(res, 200, { tokens: toyTokens(String(body.content ?? '')).map((_, i) => i) });
      if (flavour === 'vllm') {
        const tokens = toyTokens(String(body.prompt ?? ''));
        return reply(res, 200, { count: tokens.length, max_model_len: context, tokens: tokens.map((_, i) => i) });
      }
    }
    // Ollama's native `/api/show` (server/routes.go ShowHandler, route at :1888): model_info holds
    // the GGUF's `<arch>.context_length` (GetModelInfo, :1488 for safetensors, :1581 for kvData);
    // `template` and `capabilities` come from the model (routes.go:1463-1467, api/types.go:752).
    if (req.method === 'POST' && path === '/api/show' && flavour === 'ollama') {
      const arch = options.embeddings ? 'bert' : 'qwen3';
      return reply(res, 200, {
        template,
        capabilities: ollamaCapabilities(template, options.embeddings === true),
        model_info: { 'general.architecture': arch, [`${arch}.context_length`]: context },
      });
    }
    if (work && options.workMs) {
      if (slots.free > 0) slots.free--;
      else await new Promise<void>((resolve) => slots.waiting.push(resolve));
      await new Promise((resolve) => setTimeout(resolve, options.workMs));
      // The slot passes to the next in the queue when this reply is out.
      res.once('close', () => {
        const next = slots.waiting.shift();
        if (next) next();
        else slots.free++;
      });
    }
    if (req.method === 'POST' && path === '/v1/embeddings' && options.embeddings)
      return embedReply(
        {
          flavour,
          model,
          context,
          ubatch,
          vectors,
          state,
          bodyStallMs: options.embeddingBodyStallMs ?? 0,
          plainRefusals: options.plainRefusals === true,
        },
        body,
        res,
      );
    if (req.method === 'POST' && path === '/v1/chat/completions') return chat(body, res);
    reply(res, 404, notFound(flavour, `${req.method} ${path}`));
  };

  const chat = async (body: Record<string, unknown>, res: ServerResponse): Promise<void> => {
    const messages = Array.isArray(body.messages) ? (body.messages as { content?: unknown }[]) : [];
    const promptTokens = messages.reduce((n, m) => n + toyTokens(String(m.content ?? '')).length, TEMPLATE_TOKENS);
    const asked = Number(body.max_completion_tokens ?? body.max_tokens ?? 0) || undefined;
    const schema = (body.response_format as { type?: string } | undefined)?.type === 'json_schema';
    if (
      flavour === 'vllm' &&
      body.reasoning_effort != null &&
      !['low', 'medium', 'high'].includes(String(body.reasoning_effort))
    ) {
      // chat_completion/protocol.py at d5dba2d: `reasoning_effort: Literal["low", "medium", "high"] | None`,
      // so pydantic refuses any other value (Ollama's "none" among them) before the model runs.
      state.refusals++;
      return reply(res, 400, {
        error: {
          message: `1 validation error for ChatCompletionRequest\nreasoning_effort\n  Input should be 'low', 'medium' or 'high'`,
          type: 'BadRequestError',
          param: null,
          code: 400,
        },
      });
    }
    if (flavour === 'vllm' && asked !== undefined && asked > context) {
      // renderers/params.py:133-151 (1aa021e) TokenizeParams.__post_init__, with the chat request's parameter names.
      state.refusals++;
      return reply(
        res,
        400,
        vllmError(
          `max_tokens=${asked} cannot be greater than max_model_len=${context}. Please request fewer output tokens.`,
        ),
      );
    }
    if (flavour === 'vllm' && promptTokens + (asked ?? 0) > context) {
      // renderers/params.py:333-350 (1aa021e) _token_len_check: the prompt must fit max_model_len - max_tokens.
      state.refusals++;
      return reply(
        res,
        400,
        vllmError(
          `You passed ${promptTokens} input tokens and requested ${asked ?? 0} output tokens. However, the model's context length is only ${context} tokens, resulting in a maximum input length of ${context - (asked ?? 0)} tokens. Please reduce the length of the input prompt.`,
        ),
      );
    }
    if (flavour === 'llama-server' && promptTokens >= context) {
      // server-context.cpp at fb40266 :2057-2062: a prompt that does not fit the slot is
      // ERROR_TYPE_EXCEED_CONTEXT_SIZE (400), sent with the prompt's tokens and n_ctx (send_error
      // :1387-1405); the bundle's llama.cpp also puts both in the message (:3191-3199).
      state.refusals++;
      return reply(res, 400, {
        error: {
          code: 400,
          message: options.plainRefusals
            ? 'the request exceeds the available context size, try increasing it'
            : `request (${promptTokens} tokens) exceeds the available context size (${context} tokens), try increasing it`,
          type: 'exceed_context_size_error',
          n_prompt_tokens: promptTokens,
          n_ctx: context,
        },
      });
    }
    if (flavour === 'lmstudio' && promptTokens + (asked ?? 0) > context) {
      // As users report LM Studio's refusal (bug tracker #237: "BadRequestError 400").
      state.refusals++;
      return reply(res, 400, {
        error: {
          message: `Trying to keep the first ${promptTokens} tokens when context the overflows. However, the model is loaded with context length of only ${context} tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input`,
        },
      });
    }
    const numCtx = options.numCtx ?? 4096;
    const counted = flavour === 'ollama' && promptTokens > numCtx ? numCtx : promptTokens;
    if (counted < promptTokens) state.truncatedInputs++;
    const thinks = templateThinks(flavour, body, template);
    const thought =
      options.thought != null && thinks && !(flavour === 'llama-server' && schema && !harmony(template))
        ? options.thought
        : null;
    // Under a JSON schema llama-server (common/chat.cpp at ggml-org/llama.cpp 85c9a50,
    // common_chat_templates_apply_jinja :2663-2948) skips the reasoning-aware handlers of
    // DeepSeek R1 (:2715-2718) and Hermes/Qwen (`<tool_call>` in the template, :2763-2766: every
    // Qwen3 template) and falls to common_chat_params_init_without_tools (:2861-2864, :2593-2607):
    // format CONTENT_ONLY, the grammar built from the schema and not lazy, applied from the first
    // token, so the model cannot open `<think>`. gpt-oss's handler is taken with a schema too
    // (:2768-2771), and its grammar lets the analysis channel come first, then the final channel
    // holds the schema's JSON (:2057-2074): that model reasons under a schema. vLLM applies
    // structured output after its reasoning parser sees the thought end (vllm/v1/structured_output/
    // __init__.py at vllm-project/vllm 00b6063: should_fill_bitmask :280-294, should_advance
    // :296-324); a prompt that already closes the thought (Qwen3's enable_thinking: false) ends
    // reasoning before the first token (:289-293), so the schema applies from there.
    state.chats.push({ body, thought: thought !== null });
    const answer = options.answer?.(body) ?? 'An answer.';
    const opened = options.opensThoughtInPrompt === true && thinks;
    // At 85c9a50 a schema reply of such a template is plain content (see schemaReplyAsReasoning).
    const openedAsReasoning = opened && !(flavour === 'llama-server' && schema && !options.schemaReplyAsReasoning);
    // gpt-oss writes Harmony channels: the analysis message, then the final one (its template's own format).
    const raw =
      thought === null
        ? answer
        : harmony(template)
          ? `<|channel|>analysis<|message|>${thought}<|end|><|start|>assistant<|channel|>final<|message|>${answer}`
          : `${opened ? '' : '<think>\n'}${thought}\n</think>\n\n${answer}`;
    // llama-server stops at the slot's end (server-context.cpp at fb40266 :1175-1183, context
    // shift off: STOP_TYPE_LIMIT, finish "length"); the others at max_tokens.
    const limit = Math.min(
      asked ?? Number.POSITIVE_INFINITY,
      flavour === 'llama-server' ? context - promptTokens : Number.POSITIVE_INFINITY,
    );
    const { text, tokens, cut } = cutAtTokens(raw, limit);
    const split = harmony(template)
      ? splitHarmony(flavour, options.reasoningFormat ?? 'deepseek', text)
      : splitThought(flavour, options.reasoningFormat ?? 'deepseek', text, openedAsReasoning);
    const usage = { prompt_tokens: counted, completion_tokens: tokens, total_tokens: counted + tokens };
    const delay = options.firstByteDelayMs ?? 0;
    const finish = cut ? 'length' : 'stop';
    const reasoningField = flavour === 'llama-server' ? 'reasoning_content' : 'reasoning';
    if (flavour === 'vllm' && body.stream === true)
      res.writeHead(200, { 'content-type': 'text/event-stream' }).flushHeaders();
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    if (body.stream !== true) {
      return reply(res, 200, {
        id: 'c',
        object: 'chat.completion',
        created: 0,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: split.content,
              ...(split.reasoning ? { [reasoningField]: split.reasoning } : {}),
            },
            finish_reason: finish,
          },
        ],
        usage,
      });
    }
    if (!res.headersSent) res.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (delta: Record<string, unknown>, finishReason: string | null = null) =>
      res.write(
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`,
      );
    send({ role: 'assistant', content: '' });
    // Small pieces, so a tag can arrive split over two chunks as tokens do.
    for (const piece of pieces(split.reasoning)) send({ [reasoningField]: piece });
    for (const piece of pieces(split.content)) send({ content: piece });
    send({}, finish);
    res.write(
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model, choices: [], usage })}\n\n`,
    );
    res.end('data: [DONE]\n\n');
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) =>
      reply(res, 500, { error: { message: String(error), type: 'server_error' } }),
    );
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}

/** Whether a route needs the key (see {@link FlavouredServerOptions.apiKey}). */
function needsKey(flavour: ServerFlavour, path: string): boolean {
  if (flavour === 'llama-server') return !['/health', '/v1/health', '/models', '/v1/models'].includes(path);
  if (flavour === 'vllm') return path.startsWith('/v1');
  return false;
}

/**
 * Whether the template lets the model reason for this request: llama-server and vLLM pass
 * `chat_template_kwargs` to the template (vLLM protocol.py:265-271 at d5dba2d, the field of
 * `ChatCompletionRequest`; llama.cpp chat.cpp at 85c9a50 copies them into the template's extra
 * context, common_chat_templates_apply_jinja :2684-2687, and `apply` sets `enable_thinking` from
 * them :748-749), so Qwen3's `enable_thinking: false` renders the empty thought. A template that
 * never reads `enable_thinking` renders the same prompt and its model reasons all the same:
 * gpt-oss (its switch is `reasoning_effort`, whose lowest value "low" still reasons) and QwQ (no
 * switch). Ollama's OpenAI layer has no such field and maps `reasoning_effort: "none"` to
 * `think: false` (openai.go:531-549, used at :697-706); LM Studio is given no switch here (none
 * documented).
 */
function templateThinks(flavour: ServerFlavour, body: Record<string, unknown>, template: string): boolean {
  if (flavour === 'ollama') return body.reasoning_effort !== 'none';
  if (flavour === 'lmstudio') return true;
  const off = (body.chat_template_kwargs as { enable_thinking?: unknown } | undefined)?.enable_thinking === false;
  return !(off && template.includes('enable_thinking'));
}

/** gpt-oss's template (its channels), which llama-server gives its own handler (chat.cpp:2768-2771 at 85c9a50). */
const harmony = (template: string): boolean => template.includes('<|channel|>');

/**
 * Ollama's capabilities of a model (server/images.go Capabilities): `embedding` for an embedding
 * model, else `completion`, and `thinking` when the chat template has both think tags
 * (chatTemplateHasThinkingSupport, :223) or the model is gpt-oss (modelFamilyCapabilities, :451;
 * here: its template's channels).
 */
function ollamaCapabilities(template: string, embeddings: boolean): string[] {
  if (embeddings) return ['embedding'];
  const thinking = (template.includes('<think>') && template.includes('</think>')) || template.includes('<|channel|>');
  return ['completion', ...(thinking ? ['thinking'] : [])];
}

/**
 * Where the thought goes: llama-server with `--reasoning-format deepseek` and vLLM with a
 * reasoning parser move it out of `content` (llama.cpp common/chat.cpp at 85c9a50:
 * `common_chat_msg::to_json_oaicompat` writes `reasoning_content` :55-61, and a stream's deltas
 * carry `reasoning_content` :420-423, diffed apart from `content` :98-104; vLLM's ChatMessage has
 * `reasoning`, protocol.py:65 at d5dba2d), as
 * does Ollama (openai.go:35 and :46, `reasoning`); with `--reasoning-format none`, and on LM
 * Studio here, it stays inline.
 */
function splitThought(
  flavour: ServerFlavour,
  format: 'deepseek' | 'none',
  text: string,
  opened: boolean,
): { reasoning: string; content: string } {
  const inline = flavour === 'lmstudio' || (flavour === 'llama-server' && format === 'none');
  // A thought the prompt opened runs to `</think>`, or to the end when the model never closed it
  // (a schema applied from the first token: the JSON reply itself is filed as reasoning).
  const match = opened
    ? /^([\s\S]*?)(?:\n?<\/think>\s*|$)/.exec(text)
    : /^<think>\n?([\s\S]*?)(?:\n?<\/think>\s*|$)/.exec(text);
  if (inline || !match) return { reasoning: '', content: text };
  return { reasoning: match[1] ?? '', content: text.slice(match[0].length) };
}

/**
 * Where gpt-oss's analysis channel goes. llama-server parses the Harmony messages
 * (common/chat-parser.cpp at ggml-org/llama.cpp 05e5139, `common_chat_parse_gpt_oss`): the
 * analysis message becomes `reasoning_content` (`try_parse_reasoning` up to `<|end|>`), or with
 * `--reasoning-format none` stays in `content` with its header and `<|end|>` (`add_content(
 * consume_end(true))`); the `<|start|>assistant` between messages is consumed unseen
 * (`try_find_regex(start_regex, npos, false)`) and the final message's text follows. vLLM and
 * Ollama give the analysis as `reasoning`.
 */
function splitHarmony(
  flavour: ServerFlavour,
  format: 'deepseek' | 'none',
  text: string,
): { reasoning: string; content: string } {
  const match =
    /^<\|channel\|>analysis<\|message\|>([\s\S]*?)(?:<\|end\|>|$)(?:<\|start\|>assistant<\|channel\|>final<\|message\|>)?/.exec(
      text,
    );
  if (!match) return { reasoning: '', content: text };
  const answer = text.slice(match[0].length);
  if (flavour === 'lmstudio' || (flavour === 'llama-server' && format === 'none'))
    return { reasoning: '', content: `<|channel|>analysis<|message|>${match[1] ?? ''}<|end|>${answer}` };
  return { reasoning: match[1] ?? '', content: answer };
}

/** `text` cut after `limit` tokens (whole text when it has fewer). */
function cutAtTokens(text: string, limit: number): { text: string; tokens: number; cut: boolean } {
  const re = new RegExp(TOY_TOKEN);
  let count = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (count === limit) return { text: text.slice(0, m.index), tokens: count, cut: true };
    count++;
  }
  return { text, tokens: count, cut: false };
}

function pieces(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 5) out.push(text.slice(i, i + 5));
  return out;
}

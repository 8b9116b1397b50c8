import { PolyhopError } from '../../base/errors.js';

/**
 * `max_tokens` fitted to what the prompt leaves of the context. vLLM counts prompt + `max_tokens`
 * against `max_model_len` and refuses the request when they do not fit (vllm/renderers/params.py,
 * TokenizeParams._token_len_check), so a fixed 1,024- or 2,048-token budget fails every call on a
 * modest `--max-model-len`; llama-server stops at the slot's end instead. A reply room below
 * {@link minimumRoom} is no use (the answer would be cut): the prompt is too long, BAD_INPUT, which
 * batched steps answer by asking for fewer items at a time.
 */
export function fitMaxTokens(o: {
  wanted: number;
  contextTokens: number | undefined;
  promptTokens: number;
  endpoint: string;
  prompt: string;
}): number {
  if (o.contextTokens === undefined) return o.wanted;
  const room = o.contextTokens - o.promptTokens;
  if (room < minimumRoom(o.wanted)) {
    throw new PolyhopError(
      'BAD_INPUT',
      `${o.prompt}: the prompt (about ${o.promptTokens} tokens) leaves ${Math.max(0, room)} ` +
        `of endpoint ${o.endpoint}'s ${o.contextTokens}-token context for the reply`,
      { details: { endpoint: o.endpoint, promptTokens: o.promptTokens, contextTokens: o.contextTokens } },
    );
  }
  return Math.min(o.wanted, room);
}

/** The least reply room worth a call: a quarter of the budget, at least 64 tokens (or the whole budget when smaller). */
export function minimumRoom(wanted: number): number {
  return Math.min(wanted, Math.max(64, Math.ceil(wanted / 4)));
}

/**
 * The reply room a vLLM refusal states exactly: "You passed P input tokens and requested M output
 * tokens. However, the model's context length is only L tokens" gives L - P (the prompt counted
 * by the server's own tokenizer, where ours was an estimate). Undefined for other wordings.
 */
export function roomStatedByRefusal(message: string): number | undefined {
  const m =
    /passed (\d+) input tokens and requested (\d+) output tokens\. However, the model's context length is only (\d+) tokens/i.exec(
      message,
    );
  return m ? Number(m[3]) - Number(m[1]) : undefined;
}

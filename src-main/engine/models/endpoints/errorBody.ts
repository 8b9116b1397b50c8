/**
 * The text of an inference server's error body, whatever its shape: `{"error": {"message": …}}`
 * (OpenAI, llama-server), `{"error": "…"}` (Ollama), `{"detail": …}` (FastAPI's HTTPException and
 * validation errors, as vLLM answers some routes), `{"object": "error", "message": …}` (vLLM's
 * older ErrorResponse), or plain text. Null for an empty body.
 */
export function errorBodyText(body: string): string | null {
  const text = body.trim();
  if (!text) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  const shown = (value: unknown): string | null => {
    if (typeof value === 'string') return value.trim() || null;
    if (Array.isArray(value))
      return (
        value.map((v) => (v && typeof v === 'object' && 'msg' in v ? String(v.msg) : JSON.stringify(v))).join('; ') ||
        null
      );
    return value === undefined || value === null ? null : JSON.stringify(value);
  };
  if (!parsed || typeof parsed !== 'object') return shown(parsed);
  const o = parsed as Record<string, unknown>;
  const error = o.error;
  if (error && typeof error === 'object' && 'message' in error) return shown((error as { message: unknown }).message);
  return shown(error) ?? shown(o.detail) ?? shown(o.message) ?? text;
}

/**
 * A `fetch` for the OpenAI client that rewrites an error reply's body to `{"error": {"message": …}}`
 * (its other `error` fields kept), so that the client's error message carries the server's text
 * for every shape rather than "404 status code (no body)".
 */
export const fetchWithReadableErrors: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  if (response.ok) return response;
  const body = await response.text();
  const message = errorBodyText(body);
  let fields: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    if (parsed.error && typeof parsed.error === 'object') fields = parsed.error as Record<string, unknown>;
  } catch {
    // plain text: only the message
  }
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.delete('content-encoding');
  headers.set('content-type', 'application/json');
  return new Response(message === null ? '' : JSON.stringify({ error: { ...fields, message } }), {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
};

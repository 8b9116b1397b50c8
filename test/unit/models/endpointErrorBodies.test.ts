import { afterEach, describe, expect, it } from 'vitest';
import { endpointConfigSchema } from '../../../src-main/engine/models/endpoints/EndpointConfig.js';
import { OpenAiEmbedder } from '../../../src-main/engine/models/endpoints/OpenAiEmbedder.js';
import { OpenAiLlm } from '../../../src-main/engine/models/endpoints/OpenAiLlm.js';
import { startModelListServer, type ModelListServer } from '../../support/modelListServer.js';

/**
 * Error replies as servers write them reach the user as text. Shapes: OpenAI's and llama-server's
 * `{"error": {"message", "type", "code"}}`; Ollama's `{"error": "…"}` (gin `gin.H{"error": …}`);
 * FastAPI's `{"detail": …}` (an HTTPException, as vLLM's server answers some routes); vLLM's
 * `{"error": {message, type, code, param}}` and its older top-level `{"object": "error", "message": …}`
 * ("The model `x` does not exist."); plain text.
 */
let server: ModelListServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function refusal(status: number, body: unknown): Promise<string> {
  server = await startModelListServer({ models: ['served'], chatRefusal: { status, body } });
  const config = endpointConfigSchema.parse({
    id: 'gen',
    role: 'generation',
    baseUrl: server.baseUrl,
    model: 'served',
  });
  const llm = await OpenAiLlm.create(config);
  try {
    await llm.generateText({ name: 'test/x', version: '1', system: 'sys', user: 'hello', variables: {} });
  } catch (error) {
    return (error as Error).message;
  } finally {
    await llm.dispose();
  }
  throw new Error('the call succeeded');
}

describe('error bodies of every shape', () => {
  it.each([
    ['vLLM/FastAPI detail', 404, { detail: 'Not Found' }, /HTTP 404\): 404 Not Found$/],
    [
      'vLLM ErrorResponse',
      404,
      { object: 'error', message: 'The model `alias` does not exist.', type: 'NotFoundError', param: null, code: 404 },
      /HTTP 404\): 404 The model `alias` does not exist\.$/,
    ],
    [
      'vLLM ErrorResponse wrapping ErrorInfo (serving.py create_error_response at 619e4b3)',
      404,
      { error: { message: 'The model `alias` does not exist.', type: 'NotFoundError', param: 'model', code: 404 } },
      /HTTP 404\): 404 The model `alias` does not exist\.$/,
    ],
    [
      'FastAPI validation',
      422,
      { detail: [{ loc: ['body', 'messages'], msg: 'Field required', type: 'missing' }] },
      /HTTP 422\): 422 Field required$/,
    ],
    [
      'llama-server/OpenAI',
      400,
      {
        error: { code: 400, message: 'the request exceeds the available context size', type: 'invalid_request_error' },
      },
      /HTTP 400\): 400 the request exceeds the available context size$/,
    ],
    // Ollama at fb30760: its native routes answer a bare string, e.g. the scheduler's 404
    // (server/routes.go handleScheduleError :3107-3120, "try pulling it first" :3115-3116); on
    // /v1 the OpenAI middleware wraps the handler's error (ChatHandler's 404 "model 'x' not found"
    // :2481-2486) as {error: {message, type: "not_found_error", param, code}} (middleware/openai.go
    // writeError :64-78, openai/openai.go NewError :225-236).
    [
      'Ollama native',
      404,
      { error: 'model "alias" not found, try pulling it first' },
      /HTTP 404\): 404 model "alias" not found, try pulling it first$/,
    ],
    [
      'Ollama /v1',
      404,
      { error: { message: "model 'alias' not found", type: 'not_found_error', param: null, code: null } },
      /HTTP 404\): 404 model 'alias' not found$/,
    ],
    ['plain text', 502, 'Bad Gateway: upstream closed', /HTTP 502\): 502 Bad Gateway: upstream closed$/],
  ] as const)('%s', async (_shape, status, body, shown) => {
    const message = await refusal(status, body);
    expect(message).not.toContain('(no body)');
    expect(message).toMatch(shown);
  });
});

describe('the served model id, not the configured alias, goes with each request', () => {
  it('embeds and generates on a server that answers 404 for a model name it does not list (vLLM, Ollama)', async () => {
    server = await startModelListServer({
      models: ['intfloat/multilingual-e5-small'],
      embeddings: true,
      unknownModel404: true,
      chatRefusal: {
        status: 400,
        body: { error: { message: 'refused after the model check', type: 'invalid_request_error' } },
      },
    });
    const embedding = endpointConfigSchema.parse({
      id: 'emb',
      role: 'embedding',
      baseUrl: server.baseUrl,
      model: 'e5',
    });
    const embedder = await OpenAiEmbedder.create(embedding);
    expect((await embedder.embed(['Odysseus']))[0]!.length).toBe(64);
    await embedder.dispose();
    const generation = endpointConfigSchema.parse({
      id: 'gen',
      role: 'generation',
      baseUrl: server.baseUrl,
      model: 'e5',
    });
    const llm = await OpenAiLlm.create(generation);
    await expect(
      llm.generateText({ name: 'test/x', version: '1', system: 's', user: 'u', variables: {} }),
    ).rejects.toThrow(/refused after the model check/);
    await llm.dispose();
    expect(new Set(server.requestedModels)).toEqual(new Set(['intfloat/multilingual-e5-small']));
  });
});

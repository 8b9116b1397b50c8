import { afterEach, describe, expect, it } from 'vitest';
import { endpointConfigSchema } from '../../../src-main/engine/models/endpoints/EndpointConfig.js';
import { OpenAiLlm } from '../../../src-main/engine/models/endpoints/OpenAiLlm.js';
import { startModelListServer, type ModelListServer } from '../../support/modelListServer.js';

/**
 * Error replies as servers write them reach the user as text. Shapes: OpenAI's and llama-server's
 * `{"error": {"message", "type", "code"}}`; Ollama's `{"error": "…"}` (gin `gin.H{"error": …}`);
 * FastAPI's `{"detail": …}` (an HTTPException, as vLLM's server answers some routes); vLLM's older
 * top-level `{"object": "error", "message": …}` ("The model `x` does not exist."); plain text.
 */
let server: ModelListServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function refusal(status: number, body: unknown): Promise<string> {
  server = await startModelListServer({ models: ['served'], chatRefusal: { status, body } });
  const config = endpointConfigSchema.parse({ id: 'gen', role: 'generation', baseUrl: server.baseUrl, model: 'served' });
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
      'FastAPI validation',
      422,
      { detail: [{ loc: ['body', 'messages'], msg: 'Field required', type: 'missing' }] },
      /HTTP 422\): 422 Field required$/,
    ],
    [
      'llama-server/OpenAI',
      400,
      { error: { code: 400, message: 'the request exceeds the available context size', type: 'invalid_request_error' } },
      /HTTP 400\): 400 the request exceeds the available context size$/,
    ],
    ['Ollama', 404, { error: 'model "alias" not found, try pulling it first' }, /HTTP 404\): 404 model "alias" not found, try pulling it first$/],
    ['plain text', 502, 'Bad Gateway: upstream closed', /HTTP 502\): 502 Bad Gateway: upstream closed$/],
  ] as const)('%s', async (_shape, status, body, shown) => {
    const message = await refusal(status, body);
    expect(message).not.toContain('(no body)');
    expect(message).toMatch(shown);
  });
});

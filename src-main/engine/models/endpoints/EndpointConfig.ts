import { z } from 'zod';
import type { EndpointProbeView, EndpointStatusView } from '../views.js';

/**
 * An OpenAI-compatible inference server (llama-server, vLLM, Ollama, LM Studio) the user
 * configured for one role. Several endpoints of a role form a pool.
 */
export const endpointConfigSchema = z
  .object({
    /** The user's name for it: unique, used by the CLI and the Models screen. */
    id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'lower-case letters, digits, "_" or "-", at most 40'),
    role: z.enum(['generation', 'embedding']),
    /** The API root, e.g. `http://gpu1:8080/v1`. */
    baseUrl: z
      .string()
      .url()
      .max(2000)
      // Checks go on after `url()` fails: `new URL` would throw on what it refused.
      .refine((u) => !URL.canParse(u) || /^https?:$/.test(new URL(u).protocol), 'http or https only'),
    /** The model name sent with each request (the server's `/v1/models` id). */
    model: z.string().min(1).max(200),
    /** Sent as a bearer token; never logged, exported or returned by the Api. */
    apiKey: z.string().min(1).max(1000).optional(),
    /** Calls this endpoint runs at once (its server's parallel slots). */
    concurrency: z.number().int().min(1).max(256).default(4),
  })
  .strict();
export type EndpointConfig = z.output<typeof endpointConfigSchema>;
export type EndpointRole = EndpointConfig['role'];

/** What the Models screen and `polyhop models endpoint list` show for one endpoint (the Api's shape). */
export type EndpointStatus = EndpointStatusView;

/** The result of `models endpoint test`: one real round-trip to the server. */
export type EndpointProbe = EndpointProbeView;

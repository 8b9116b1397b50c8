import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { PolyhopError } from '../base/errors.js';

/**
 * `models/catalog.json`: models Polyhop recommends and can download on explicit request.
 * Sizes are approximate (they are shown to the user before a download and used as a sanity
 * bound, not as a checksum); `sha256`, when present, is verified exactly.
 */
const entrySchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/),
    role: z.enum(['generation', 'embedding']),
    name: z.string().min(1),
    tier: z.enum(['small', 'medium', 'workstation']).optional(),
    /** 'gguf': one file (or the first part of a split model); 'onnx': a folder of `files`. */
    format: z.enum(['gguf', 'onnx']),
    /** File name (gguf) or folder name (onnx) under the models directory. */
    file: z.string().regex(/^[^/\\]+$/, 'a plain file or folder name'),
    sizeBytes: z.number().int().positive(),
    licence: z.string().min(1),
    languages: z.array(z.string()).min(1),
    quantisation: z.string().optional(),
    /** gguf: `hf:<owner>/<repo>/<file>` or an https URL; onnx: the base URL the `files` are relative to. */
    uri: z.string().regex(/^(hf:|https:\/\/|http:\/\/)/),
    /** onnx only: paths relative to `uri`, kept under `file/`. */
    files: z.array(z.string().regex(/^[\w.-]+(\/[\w.-]+)*$/)).optional(),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional(),
    notes: z.string().optional(),
  })
  .strict()
  .refine((e) => e.format !== 'onnx' || (e.files?.length ?? 0) > 0, 'onnx entries list their files');

export const catalogSchema = z
  .object({ version: z.literal(1), note: z.string().optional(), models: z.array(entrySchema) })
  .strict();

export type CatalogModel = z.infer<typeof entrySchema>;

export async function loadCatalog(path: string): Promise<CatalogModel[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new PolyhopError('NOT_FOUND', `Model catalog ${path} cannot be read`, {
      details: { file: path },
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new PolyhopError(
      'BAD_INPUT',
      `Model catalog ${path} is not JSON: ${error instanceof Error ? error.message : String(error)}`,
      { details: { file: path } },
    );
  }
  const parsed = catalogSchema.safeParse(json);
  if (!parsed.success)
    throw new PolyhopError('BAD_INPUT', `Model catalog ${path} is invalid: ${parsed.error.message}`, {
      details: { file: path },
    });
  const ids = new Set<string>();
  for (const m of parsed.data.models) {
    if (ids.has(m.id))
      throw new PolyhopError('BAD_INPUT', `Model catalog ${path} lists id "${m.id}" twice`, {
        details: { file: path },
      });
    ids.add(m.id);
  }
  return parsed.data.models;
}

/**
 * The only remote hosts a download may contact: every URI of the shipped catalog names one (a
 * test holds the catalog to it), and {@link allowedDownloadUrl} refuses anything else.
 */
export const DOWNLOAD_HOSTS: readonly string[] = ['huggingface.co'];

/**
 * Where a download may be redirected: the catalog hosts' own content-delivery hosts (Hugging Face
 * answers a file URL with a redirect to cdn-lfs*.huggingface.co, *.hf.co or cas-bridge.xethub.hf.co).
 */
const REDIRECT_DOMAINS: readonly string[] = ['huggingface.co', 'hf.co'];

const LOOPBACK = /^(?:localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])$/;

/**
 * `url` if it is https on a {@link DOWNLOAD_HOSTS} host, or a mirror on this machine (loopback);
 * anything else is NETWORK_BLOCKED, before any connection is tried.
 */
export function allowedDownloadUrl(url: string): string {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    // refused below
  }
  const remoteOk = parsed?.protocol === 'https:' && DOWNLOAD_HOSTS.includes(parsed.hostname);
  const localOk = (parsed?.protocol === 'https:' || parsed?.protocol === 'http:') && LOOPBACK.test(parsed.hostname);
  if (!parsed || !(remoteOk || localOk)) {
    throw new PolyhopError(
      'NETWORK_BLOCKED',
      `Refusing to download from ${url}: downloads go over https to ${DOWNLOAD_HOSTS.join(', ')} (or a mirror on this machine) only`,
      {
        details: { url, allowedHosts: DOWNLOAD_HOSTS },
      },
    );
  }
  return parsed.href;
}

/**
 * `location` (resolved against `from`) if a download at `from` may follow a redirect there: https
 * within {@link REDIRECT_DOMAINS}, or, from a mirror on this machine, to this machine only.
 * Anything else is NETWORK_BLOCKED, before the redirect is followed.
 */
export function allowedRedirect(from: string, location: string): string {
  let to: URL | null = null;
  try {
    to = new URL(location, from);
  } catch {
    // refused below
  }
  const local = LOOPBACK.test(new URL(from).hostname);
  const ok = local
    ? (to?.protocol === 'https:' || to?.protocol === 'http:') && LOOPBACK.test(to.hostname)
    : to?.protocol === 'https:' && REDIRECT_DOMAINS.some((d) => to.hostname === d || to.hostname.endsWith(`.${d}`));
  if (!to || !ok) {
    throw new PolyhopError(
      'NETWORK_BLOCKED',
      `Refusing to follow the redirect of ${from} to ${location}: downloads stay on ${REDIRECT_DOMAINS.join(', ')} over https (or on this machine)`,
      {
        details: { url: from, location, allowedDomains: REDIRECT_DOMAINS },
      },
    );
  }
  return to.href;
}

/** The https URL a catalog URI is fetched from (`hf:owner/repo/path` → Hugging Face's resolve URL). */
export function catalogUrl(uri: string): string {
  if (!uri.startsWith('hf:')) return uri;
  const [owner, repo, ...rest] = uri.slice(3).split('/');
  return `https://huggingface.co/${owner}/${repo}/resolve/main/${rest.join('/')}`;
}

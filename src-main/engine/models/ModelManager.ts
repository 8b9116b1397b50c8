import { createReadStream, existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { throwIfAborted } from '../base/abort.js';
import { PolyhopError } from '../base/errors.js';
import type { CatalogEntry, ModelFile, ModelInfo } from './views.js';
import { inspectGguf } from './inspectGguf.js';
import { allowedDownloadUrl, catalogUrl, loadCatalog } from './ModelCatalog.js';
import { downloadFile, type DownloadProgress } from './downloadFile.js';

export interface ModelManagerOptions {
  /** Folder holding installed models (GGUF files, ONNX folders) and `references.json`. */
  modelsDir: string;
  /** The catalog of downloadable models (`models/catalog.json`). */
  catalogPath: string;
}

export interface ModelDownloadOptions {
  signal?: AbortSignal;
  onProgress?: (progress: DownloadProgress) => void;
}

const REFERENCES = 'references.json';

/**
 * Installed models: lists the models folder (GGUF files; ONNX folders with `onnx/model.onnx` or
 * `model.onnx` beside `config.json`) plus models referenced where they lie, inspects, imports
 * (copy or reference), removes, and downloads catalog entries on explicit request only.
 */
export class ModelManager {
  readonly #dir: string;
  readonly #catalogPath: string;

  constructor(options: ModelManagerOptions) {
    this.#dir = resolve(options.modelsDir);
    this.#catalogPath = options.catalogPath;
  }

  get modelsDir(): string {
    return this.#dir;
  }

  async list(): Promise<ModelFile[]> {
    const found: ModelFile[] = [];
    const entries = await readdir(this.#dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(this.#dir, entry.name);
      if (entry.isFile() && entry.name.toLowerCase().endsWith('.gguf'))
        found.push({ file: entry.name, path, kind: 'gguf', sizeBytes: (await stat(path)).size });
      else if (entry.isDirectory() && onnxModelFile(path))
        found.push({ file: entry.name, path, kind: 'onnx', sizeBytes: await folderSize(path) });
    }
    for (const path of await this.#references()) {
      const kind = modelKind(path);
      if (kind)
        found.push({
          file: basename(path),
          path,
          kind,
          sizeBytes: kind === 'gguf' ? (await stat(path)).size : await folderSize(path),
        });
    }
    return found.sort((a, b) => a.file.localeCompare(b.file));
  }

  /** Reads a model's self-description; unusable files are BAD_INPUT naming the file. */
  async inspect(path: string): Promise<ModelInfo> {
    const kind = modelKind(path);
    if (kind === 'gguf') return inspectGguf(path);
    if (kind === 'onnx') return inspectOnnx(path);
    if (!existsSync(path)) throw new PolyhopError('NOT_FOUND', `No model at ${path}`, { details: { file: path } });
    throw new PolyhopError(
      'BAD_INPUT',
      `${basename(path)} is neither a .gguf file nor an ONNX model folder (onnx/model.onnx or model.onnx with config.json)`,
      { details: { file: path } },
    );
  }

  /** Validates, then copies into the models folder or records a reference to where it lies. */
  async import(path: string, mode: 'copy' | 'reference' = 'copy', signal?: AbortSignal): Promise<ModelFile> {
    const source = resolve(path);
    await this.inspect(source);
    const kind = modelKind(source) as 'gguf' | 'onnx';
    if (mode === 'reference') {
      const refs = await this.#references();
      if (!refs.includes(source)) await this.#writeReferences([...refs, source]);
      return (await this.list()).find((m) => m.path === source) as ModelFile;
    }
    const dest = join(this.#dir, basename(source));
    if (existsSync(dest))
      throw new PolyhopError('ALREADY_EXISTS', `${basename(source)} is already in ${this.#dir}`, {
        details: { file: dest },
      });
    await mkdir(this.#dir, { recursive: true });
    const tmp = `${dest}.importing`;
    try {
      if (kind === 'gguf') await copyFile(source, tmp);
      else await copyFolder(source, tmp, signal);
      throwIfAborted(signal);
      await rename(tmp, dest);
    } catch (error) {
      await rm(tmp, { recursive: true, force: true });
      throw error;
    }
    return {
      file: basename(dest),
      path: dest,
      kind,
      sizeBytes: kind === 'gguf' ? (await stat(dest)).size : await folderSize(dest),
    };
  }

  /** Deletes an installed model, or forgets a referenced one (never deleting the user's original). */
  async remove(file: string): Promise<void> {
    const refs = await this.#references();
    const ref = refs.find((r) => r === file || basename(r) === file);
    if (ref) return this.#writeReferences(refs.filter((r) => r !== ref));
    const path = resolve(this.#dir, file);
    if (basename(path) !== file || resolve(path, '..') !== this.#dir || !modelKind(path)) {
      throw new PolyhopError('NOT_FOUND', `No installed model named ${file}`, { details: { file } });
    }
    await rm(path, { recursive: true, force: true });
  }

  async catalog(): Promise<CatalogEntry[]> {
    const models = await loadCatalog(this.#catalogPath);
    return models.map((m) => ({
      id: m.id,
      role: m.role,
      name: m.name,
      ...(m.tier ? { tier: m.tier } : {}),
      file: m.file,
      sizeBytes: m.sizeBytes,
      licence: m.licence,
      languages: m.languages,
      ...(m.quantisation ? { quantisation: m.quantisation } : {}),
      uri: m.uri,
      ...(m.sha256 ? { sha256: m.sha256 } : {}),
      installed: existsSync(join(this.#dir, m.file)),
    }));
  }

  /**
   * Downloads one catalog entry into the models folder: the only code path that touches the
   * network, run only when the user asks. Resumes an interrupted download, checks sha256 when
   * the catalog has one and validates the result like an import. Offline → UNSUPPORTED, saying so.
   */
  async download(catalogId: string, options: ModelDownloadOptions = {}): Promise<ModelFile> {
    const entry = (await loadCatalog(this.#catalogPath)).find((m) => m.id === catalogId);
    if (!entry)
      throw new PolyhopError('NOT_FOUND', `No model "${catalogId}" in the catalog`, { details: { catalogId } });
    // Every URL is checked before the first byte is asked for, so a bad entry fetches nothing.
    const urls =
      entry.format === 'gguf'
        ? [allowedDownloadUrl(catalogUrl(entry.uri))]
        : (entry.files ?? []).map((file) => allowedDownloadUrl(new URL(file, withSlash(catalogUrl(entry.uri))).href));
    await mkdir(this.#dir, { recursive: true });
    const dest = join(this.#dir, entry.file);
    if (entry.format === 'gguf') await downloadFile(urls[0] as string, dest, options);
    else {
      const tmp = `${dest}.downloading`;
      for (const [i, file] of (entry.files ?? []).entries()) {
        throwIfAborted(options.signal);
        const target = join(tmp, file);
        if (!existsSync(target)) await downloadFile(urls[i] as string, target, options);
      }
      await rename(tmp, dest);
    }
    if (entry.sha256 && entry.format === 'gguf') {
      const actual = await sha256File(dest, options.signal);
      if (actual !== entry.sha256) {
        await rm(dest, { force: true });
        throw new PolyhopError(
          'BAD_INPUT',
          `${entry.file}: checksum mismatch (expected ${entry.sha256}, got ${actual}); the file was deleted`,
          { details: { file: dest } },
        );
      }
    }
    await this.inspect(dest);
    return (await this.list()).find((m) => m.path === dest) as ModelFile;
  }

  async #references(): Promise<string[]> {
    try {
      const refs = JSON.parse(await readFile(join(this.#dir, REFERENCES), 'utf8')) as unknown;
      return Array.isArray(refs) ? refs.filter((r): r is string => typeof r === 'string' && existsSync(r)) : [];
    } catch {
      return [];
    }
  }

  async #writeReferences(refs: string[]): Promise<void> {
    await mkdir(this.#dir, { recursive: true });
    const path = join(this.#dir, REFERENCES);
    await writeFile(`${path}.tmp`, JSON.stringify(refs, null, 2));
    await rename(`${path}.tmp`, path);
  }
}

export function modelKind(path: string): 'gguf' | 'onnx' | undefined {
  if (path.toLowerCase().endsWith('.gguf') && existsSync(path)) return 'gguf';
  return onnxModelFile(path) ? 'onnx' : undefined;
}

/** The ONNX graph of a model folder, if it is one. */
function onnxModelFile(dir: string): string | undefined {
  if (!existsSync(join(dir, 'config.json'))) return undefined;
  return [join(dir, 'onnx', 'model.onnx'), join(dir, 'model.onnx')].find((p) => existsSync(p));
}

async function inspectOnnx(dir: string): Promise<ModelInfo> {
  let config: Record<string, unknown>;
  try {
    config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new PolyhopError('BAD_INPUT', `${basename(dir)}: config.json is not valid JSON`, {
      details: { file: join(dir, 'config.json') },
      cause: error,
    });
  }
  const metadata: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(config))
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') metadata[k] = v;
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const contextLength = num(config.max_position_embeddings);
  const embeddingLength = num(config.hidden_size);
  return {
    path: dir,
    architecture: typeof config.model_type === 'string' ? config.model_type : 'unknown',
    ...(contextLength !== undefined ? { contextLength } : {}),
    ...(embeddingLength !== undefined ? { embeddingLength } : {}),
    metadata,
  };
}

async function folderSize(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

async function copyFolder(from: string, to: string, signal?: AbortSignal): Promise<void> {
  for (const entry of await readdir(from, { withFileTypes: true, recursive: true })) {
    throwIfAborted(signal);
    if (!entry.isFile()) continue;
    const rel = join(entry.parentPath, entry.name).slice(from.length + 1);
    await mkdir(join(to, rel, '..'), { recursive: true });
    await copyFile(join(from, rel), join(to, rel));
  }
}

async function sha256File(path: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, signal ? { signal } : {})) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const withSlash = (url: string): string => (url.endsWith('/') ? url : `${url}/`);

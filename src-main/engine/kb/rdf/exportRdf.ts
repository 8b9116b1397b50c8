import { type FileHandle, open, rename, rm } from 'node:fs/promises';
import { throwIfAborted } from '../../base/abort.js';
import { storageError } from '../../base/storageError.js';
import { type RdfScope, buildQuads } from './buildQuads.js';
import type { RdfRecordSource } from './RdfRecordSource.js';
import { type RdfWriteFormat, RdfSerializer } from './RdfSerializer.js';
import { KbIris } from './terms.js';
import { STANDARD_PREFIXES } from './vocabulary.js';

export interface ExportRdfOptions {
  /** Default: 'turtle'. */
  format?: RdfWriteFormat;
  /** Default: `{ kind: 'all' }`. */
  scope?: RdfScope;
  /** Add every stored answer graph after the scope (see BuildQuadsOptions.answers). Default: false. */
  answers?: boolean;
  /** Called after each written batch. */
  onProgress?: (progress: ExportProgress) => void;
  signal?: AbortSignal;
  /** Quads per batch (one write each). Default: 5000. */
  batchSize?: number;
  /**
   * Write to `<outputPath>.part` and rename on success, so a failed or cancelled export never leaves
   * a truncated file under the chosen name. Default: true.
   */
  atomic?: boolean;
}

export interface ExportProgress {
  quads: number;
  bytes: number;
}

/**
 * Streams the quads of `scope` into `outputPath` as Turtle (with the ontology's and the KB's
 * prefixes), N-Triples or N-Quads. Memory stays at one batch: nothing is built as one string.
 * A full disk is STORAGE_FULL, any other write failure BAD_INPUT naming the file.
 */
export async function exportRdf(
  source: RdfRecordSource,
  outputPath: string,
  options: ExportRdfOptions = {},
): Promise<ExportProgress> {
  const format = options.format ?? 'turtle';
  const atomic = options.atomic ?? true;
  const target = atomic ? `${outputPath}.part` : outputPath;
  const serializer = new RdfSerializer(format, { ...STANDARD_PREFIXES, ...new KbIris(source.baseIri).prefixes() });
  const progress: ExportProgress = { quads: 0, bytes: 0 };
  let handle: FileHandle | undefined;
  try {
    handle = await open(target, 'w');
  } catch (error) {
    throw storageError(error, outputPath);
  }
  try {
    const file = handle;
    const write = async (text: string): Promise<void> => {
      if (text === '') return;
      const bytes = Buffer.from(text, 'utf8');
      try {
        await file.write(bytes);
      } catch (error) {
        throw storageError(error, outputPath);
      }
      progress.bytes += bytes.length;
    };
    await write(serializer.header());
    for await (const batch of buildQuads(source, options.scope ?? { kind: 'all' }, {
      batchSize: options.batchSize,
      answers: options.answers ?? false,
      signal: options.signal,
    })) {
      throwIfAborted(options.signal);
      await write(serializer.write(batch));
      progress.quads += batch.length;
      options.onProgress?.({ ...progress });
    }
    await write(serializer.end());
    try {
      await file.close();
    } catch (error) {
      throw storageError(error, outputPath);
    }
    handle = undefined;
    if (atomic) {
      try {
        await rename(target, outputPath);
      } catch (error) {
        throw storageError(error, outputPath);
      }
    }
    return progress;
  } catch (error) {
    await handle?.close().catch(() => undefined);
    if (atomic) await rm(target, { force: true });
    throw error;
  }
}

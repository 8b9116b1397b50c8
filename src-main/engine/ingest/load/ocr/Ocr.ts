import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createWorker, OEM, type Worker as TesseractWorker } from 'tesseract.js';
import { INSTALLED_OCR_LANGUAGES, OCR_LANGUAGE_DIR, ocrLanguageInstalled } from './ocrLanguages.js';

export interface OcrOptions {
  /**
   * Tesseract language codes to recognise, each an installed `@tesseract.js-data/<code>` package.
   * Default: every installed language ({@link INSTALLED_OCR_LANGUAGES}).
   */
  languages?: readonly string[];
  /**
   * The folder tesseract.js reads `<code>.traineddata.gz` from. Default: the `@tesseract.js-data`
   * packages in node_modules. A URL is refused (OCR runs offline): recognition then fails.
   */
  langPath?: string;
}

export interface OcrResult {
  /** The recognised text, lines separated by `\n`; no spaces between CJK characters. */
  text: string;
  /** Tesseract's mean word confidence, 0–100. */
  confidence: number;
}

/** The last memory report (heap and buffers outside it, wasm included) of each live OCR thread. */
const threadMemory = new Map<object, number>();

/**
 * Memory the OCR threads started from this thread take now, in bytes: the document's loader
 * thread adds it to its own when it checks the document's memory limit.
 */
export function ocrThreadMemoryBytes(): number {
  let sum = 0;
  for (const bytes of threadMemory.values()) sum += bytes;
  return sum;
}

const require = createRequire(import.meta.url);
/** The tesseract.js-core build folder (tesseract.js in Node requires its wasm core from there). */
const CORE_PATH = dirname(require.resolve('tesseract.js-core/package.json'));
/** The recognition thread's script, next to this module in source and in the built app. */
const WORKER_PATH = fileURLToPath(new URL('./ocrThread.js', import.meta.url));

/** Tesseract puts spaces between CJK characters it reads as separate words; CJK text has none. */
const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\u3000-\\u303F\\uFF00-\\uFFEF';
const CJK_GAP = new RegExp(`(?<=[${CJK}]) +(?=[${CJK}])`, 'gu');

/**
 * Offline OCR with tesseract.js: a recognition thread of its own (the loader thread's child, ended
 * with it) that reads the language data and the wasm core from node_modules and can fetch nothing.
 *
 * ```ts
 * await using ocr = await Ocr.create({ languages: ['eng', 'ita'] });
 * const { text, confidence } = await ocr.recognize(pngBytes);
 * ```
 */
export class Ocr {
  readonly #worker: TesseractWorker;
  readonly #key = {};
  readonly languages: readonly string[];
  #disposed = false;

  private constructor(worker: TesseractWorker, languages: readonly string[]) {
    this.#worker = worker;
    this.languages = languages;
    const thread = (worker as unknown as { worker: NodeJS.EventEmitter }).worker;
    thread.on('message', (message: { polyhopMemoryBytes?: number }) => {
      if (typeof message?.polyhopMemoryBytes === 'number' && !this.#disposed)
        threadMemory.set(this.#key, message.polyhopMemoryBytes);
    });
  }

  static async create(options: OcrOptions = {}): Promise<Ocr> {
    const languages = [...(options.languages ?? INSTALLED_OCR_LANGUAGES)];
    const missing = languages.filter((code) => !ocrLanguageInstalled(code));
    if (languages.length === 0 || missing.length > 0)
      throw new Error(
        `OCR language data not installed: ${missing.join(', ') || '(none given)'} (installed: ${INSTALLED_OCR_LANGUAGES.join(', ')})`,
      );
    // tesseract.js leaves createWorker pending when loading a language fails, and only reports it
    // to errorHandler (the thread then ends itself: ocrThread.js).
    let failed: (error: unknown) => void = () => {};
    const failure = new Promise<never>((_, reject) => (failed = reject));
    const worker = await Promise.race([
      createWorker(languages, OEM.LSTM_ONLY, {
        workerPath: WORKER_PATH,
        corePath: CORE_PATH,
        langPath: options.langPath ?? OCR_LANGUAGE_DIR,
        // Nothing is written next to the app (tesseract.js caches language data in the working folder by default).
        cacheMethod: 'none',
        gzip: true,
        errorHandler: (error: unknown) => failed(error),
      }),
      failure,
    ]).catch((error: unknown) => {
      throw new Error(`OCR could not start (${String(error)})`);
    });
    // Later failures reject the call they belong to; errorHandler only keeps them from being thrown.
    failure.catch(() => {});
    return new Ocr(worker, languages);
  }

  async recognize(image: Uint8Array): Promise<OcrResult> {
    // tesseract.js reads a Buffer as image bytes (a string would be a path or a URL to fetch).
    const { data } = await this.#worker.recognize(Buffer.from(image.buffer, image.byteOffset, image.byteLength));
    const text = data.text
      .split('\n')
      .map((line) => line.replace(CJK_GAP, '').trimEnd())
      .join('\n')
      .trim();
    return { text, confidence: data.confidence };
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    threadMemory.delete(this.#key);
    await this.#worker.terminate();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }
}

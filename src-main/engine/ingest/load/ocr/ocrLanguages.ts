import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The OCR languages installed with Polyhop: one `@tesseract.js-data/<code>` package for each
 * language the UI has (en, de, fr, it, es, zh), as Tesseract codes. Another language is added by
 * installing its package (`npm i -E @tesseract.js-data/<code>`) and naming it in `languages`.
 */
export const INSTALLED_OCR_LANGUAGES = ['eng', 'deu', 'fra', 'ita', 'spa', 'chi_sim'] as const;

/**
 * The folder that holds the `@tesseract.js-data` packages in node_modules: the `langPath` handed to
 * tesseract.js. The OCR thread reads `<langPath>/<code>.traineddata.gz` from the package's
 * LSTM-only data, `<langPath>/<code>/4.0.0_best_int/<code>.traineddata.gz`.
 */
export const OCR_LANGUAGE_DIR = dirname(
  dirname(createRequire(import.meta.url).resolve('@tesseract.js-data/eng/package.json')),
);

/** Where a language's data file lies on disk (whether or not its package is installed). */
export function ocrLanguageFile(code: string): string {
  return join(OCR_LANGUAGE_DIR, code, '4.0.0_best_int', `${code}.traineddata.gz`);
}

/** Whether a language's data package is installed (a code is letters and underscores only). */
export function ocrLanguageInstalled(code: string): boolean {
  return /^[a-z_]+$/.test(code) && existsSync(ocrLanguageFile(code));
}

/** BCP 47 tags of the Tesseract codes whose name the UI shows (`Intl.DisplayNames`); others are shown as their code. */
const OCR_LANGUAGE_TAGS: Readonly<Record<string, string>> = {
  eng: 'en',
  deu: 'de',
  fra: 'fr',
  ita: 'it',
  spa: 'es',
  por: 'pt',
  nld: 'nl',
  jpn: 'ja',
  kor: 'ko',
  rus: 'ru',
  ara: 'ar',
  chi_sim: 'zh-Hans',
  chi_tra: 'zh-Hant',
};

/** The OCR languages whose data is installed now (every `@tesseract.js-data/<code>` package), by code, with the tag that names each. */
export function installedOcrLanguages(): { code: string; tag: string | null }[] {
  return readdirSync(OCR_LANGUAGE_DIR)
    .filter(ocrLanguageInstalled)
    .sort()
    .map((code) => ({ code, tag: OCR_LANGUAGE_TAGS[code] ?? null }));
}

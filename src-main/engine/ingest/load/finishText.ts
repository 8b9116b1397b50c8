import { basename, extname } from 'node:path';
import { badInput } from '../badInput.js';
import { detectLanguage } from '../detectLanguage.js';
import type { LoadedText } from '../types.js';

/**
 * The last checks and fields every loaded text gets: refused when empty or above `maxTextChars`,
 * the detected language (else the one the file declares), the title (else the file's name).
 */
export function finishText<T extends LoadedText>(
  loaded: T,
  path: string,
  maxTextChars: number,
): T & { title: string; language: string } {
  if (!loaded.text.trim()) throw badInput(path, 'no text found in the file');
  if (loaded.text.length > maxTextChars) throw badInput(path, `extracted text exceeds ${maxTextChars} characters`);
  const detected = detectLanguage(loaded.text);
  return {
    ...loaded,
    title: loaded.title ?? basename(path, extname(path)),
    language: detected !== 'und' ? detected : (loaded.language ?? 'und'),
  };
}

import mammoth from 'mammoth';
import { badInput } from '../badInput.js';
import type { LoadedText } from '../types.js';
import { checkZipLimits, readZipDirectory, type ZipLimits } from './zipArchive.js';

/**
 * Raw text of a DOCX (mammoth), after proving the zip cannot inflate beyond `limits`.
 * Paragraphs are separated by a blank line.
 */
export async function loadDocx(bytes: Buffer, path: string, limits: ZipLimits = {}): Promise<LoadedText> {
  const entries = readZipDirectory(bytes, path);
  if (!entries.some((e) => e.name === 'word/document.xml')) throw badInput(path, 'not a DOCX file (no word/document.xml in the archive)');
  checkZipLimits(bytes, entries, path, limits);
  let value: string;
  try {
    ({ value } = await mammoth.extractRawText({ buffer: bytes }));
  } catch (error) {
    throw badInput(path, `cannot read DOCX (${(error as Error).message})`, { cause: error });
  }
  return { text: value.replace(/\r\n?/g, '\n').replace(/\n{3,}/g, '\n\n').trim(), mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' };
}

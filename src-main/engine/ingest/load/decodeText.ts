import { badInput } from '../badInput.js';

export interface DecodedText {
  text: string;
  encoding: 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';
}

/** Bytes examined for the UTF-16 and control-character heuristics. */
const SNIFF_BYTES = 64 * 1024;

/**
 * windows-1252's 0x80–0x9F (Node's TextDecoder decodes the label as ISO-8859-1, leaving C1
 * controls where the smart quotes, dashes and € belong). Undefined bytes stay as-is.
 */
const CP1252_HIGH = '€\x81‚ƒ„…†‡ˆ‰Š‹Œ\x8dŽ\x8f\x90‘’“”•–—˜™š›œ\x9džŸ';

function decodeWindows1252(bytes: Uint8Array): string {
  return new TextDecoder('latin1').decode(bytes).replace(/[\x80-\x9f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]!);
}

/**
 * Whether windows-1252 text is plausibly what the author wrote: every non-ASCII character is a
 * letter or the punctuation legacy Western text uses (quotes, dashes, €, NBSP…). Random or damaged
 * bytes decode to symbols (¡, ¼, undefined C1 bytes) and fail this, so they are refused instead of
 * being indexed as mojibake.
 */
function readsAsWindows1252(text: string): boolean {
  return /^[\x00-\x7f\p{L}\u00a0«»°§£€‘’‚“”„–—…•·]*$/u.test(text);
}

/** Byte offset of the first invalid UTF-8 sequence (a U+FFFD the bytes did not spell out). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  const text = new TextDecoder('utf-8').decode(bytes);
  for (let i = text.indexOf('\ufffd'); i >= 0; i = text.indexOf('\ufffd', i + 1)) {
    const offset = Buffer.byteLength(text.slice(0, i));
    if (!(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd)) return offset;
  }
  return -1;
}

/** UTF-16 without BOM: ASCII-range text has a NUL in every other byte, on one side only. */
function utf16WithoutBom(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  const n = Math.min(bytes.length, SNIFF_BYTES) & ~1;
  if (n < 4) return undefined;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) even++;
    if (bytes[i + 1] === 0) odd++;
  }
  const pairs = n / 2;
  if (odd >= pairs * 0.3 && even <= pairs * 0.02) return 'utf-16le';
  if (even >= pairs * 0.3 && odd <= pairs * 0.02) return 'utf-16be';
  return undefined;
}

/** Share of C0 control bytes other than tab, line feed, vertical tab, form feed, carriage return, escape. */
function controlRatio(bytes: Uint8Array): number {
  const n = Math.min(bytes.length, SNIFF_BYTES);
  let control = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if ((b < 0x20 && (b < 0x09 || b > 0x0d) && b !== 0x1b) || b === 0x7f) control++;
  }
  return n === 0 ? 0 : control / n;
}

/**
 * Decodes a text file's bytes:
 * - a BOM decides (UTF-8, UTF-16 LE/BE);
 * - without one, NULs in every other byte mean UTF-16 (LE or BE by their side);
 * - any other NUL byte, or more than 5% control characters, means a binary file: BAD_INPUT;
 * - otherwise strict UTF-8; bytes that are not valid UTF-8 are read as windows-1252 (the usual
 *   legacy encoding of Western text) when that gives plausible text, else BAD_INPUT naming the
 *   first invalid byte. The chosen `encoding` is returned so the UI can show it.
 * Line endings become `\n`.
 */
export function decodeText(bytes: Uint8Array, path: string): DecodedText {
  let encoding: DecodedText['encoding'] | undefined;
  let body = bytes;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    encoding = 'utf-8';
    body = bytes.subarray(3);
  } else if (bytes[0] === 0xff && bytes[1] === 0xfe) {
    encoding = 'utf-16le';
    body = bytes.subarray(2);
  } else if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    encoding = 'utf-16be';
    body = bytes.subarray(2);
  } else {
    encoding = utf16WithoutBom(bytes);
  }
  let text: string;
  if (encoding === 'utf-16le' || encoding === 'utf-16be') {
    text = new TextDecoder(encoding).decode(body);
    if (text.includes('\0')) throw badInput(path, 'contains NUL characters (binary file?)');
  } else {
    const nul = Buffer.from(body.buffer, body.byteOffset, body.byteLength).indexOf(0);
    if (nul >= 0)
      throw badInput(path, `contains NUL bytes (binary file?) at byte ${nul}`, { details: { offset: nul } });
    const ratio = controlRatio(body);
    if (ratio > 0.05) throw badInput(path, `${Math.round(ratio * 100)}% control characters (binary file?)`);
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(body);
      encoding = 'utf-8';
    } catch {
      text = decodeWindows1252(body);
      encoding = 'windows-1252';
      if (!readsAsWindows1252(text)) {
        const offset = firstInvalidUtf8(body) + (bytes.length - body.length);
        throw badInput(
          path,
          `is not valid UTF-8 (first invalid byte at offset ${offset}) and does not read as windows-1252 text; save it as UTF-8 and add it again`,
          {
            details: { offset },
          },
        );
      }
    }
  }
  return { text: text.replace(/\r\n?/g, '\n'), encoding };
}

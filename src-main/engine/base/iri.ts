import { createHash } from 'node:crypto';
import { PolyhopError } from './errors.js';

/**
 * The one way Polyhop turns names into IRIs. `mintIri(base, ['entity', 'Penelope of Ithaca'])`
 * is `<base>entity/Penelope_of_Ithaca`.
 *
 * Each segment is encoded so that the result is a valid absolute IRI (RFC 3987) for ANY JavaScript
 * string, readable where the name is, and injective:
 * - letters, digits and combining marks of any script (RTL included) stay as they are, as do ASCII `-` and `.`
 *   (a leading or trailing `.` is escaped so no segment reads as a dot-segment);
 * - a space becomes `_` and `_` itself is escaped, so "Barack Obama" reads `Barack_Obama`;
 * - everything else (quotes, `<>`, `/`, `%`, controls, emoji, bidi controls…) is percent-encoded
 *   from its WTF-8 bytes, so a lone surrogate encodes apart from U+FFFD instead of collapsing onto it;
 * - an empty segment is `~`; a segment whose encoding would exceed {@link MAX_SEGMENT_CHARS} keeps a
 *   readable prefix, then `~`, then the SHA-256 of the full name's WTF-8 bytes (`~` never appears in a
 *   short encoding, so short and long forms cannot meet).
 * Segments are joined with `/`, which is always escaped inside a segment, so the segment list is
 * recoverable too: distinct lists give distinct IRIs (up to SHA-256 collisions for long names).
 */
export function mintIri(base: string, segments: readonly string[]): string {
  assertBaseIri(base);
  return base + segments.map(encodeIriSegment).join('/');
}

/** Encoded segments longer than this switch to prefix + `~` + hash. */
export const MAX_SEGMENT_CHARS = 240;
const LONG_PREFIX_CHARS = 160;

/** Throws BAD_INPUT unless `base` is an absolute IRI ending in `/` or `#` with no character IRIs forbid. */
export function assertBaseIri(base: string): void {
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s<>"{}|\\^`\u0000-\u001f\u007f]*[/#]$/u.test(base) || hasLoneSurrogate(base)) {
    throw new PolyhopError(
      'BAD_INPUT',
      `iri: base IRI ${JSON.stringify(base.slice(0, 200))} must be absolute and end in "/" or "#"`,
      {
        details: { base: base.slice(0, 2000) },
      },
    );
  }
}

/** One segment of {@link mintIri}; exported for callers that build prefixed names. */
export function encodeIriSegment(name: string): string {
  if (name === '') return '~';
  let out = '';
  const last = name.length - 1;
  for (let i = 0; i < name.length; i++) {
    const unit = name.charCodeAt(i);
    let cp = unit;
    let width = 1;
    if (unit >= 0xd800 && unit <= 0xdbff && i < last) {
      const next = name.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        cp = 0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00);
        width = 2;
      }
    }
    const ch = name.slice(i, i + width);
    if (ch === ' ') out += '_';
    else if (ch === '.' ? i !== 0 && i + width - 1 !== last : isKept(ch, cp)) out += ch;
    else out += percentEncode(cp);
    i += width - 1;
  }
  if (out.length <= MAX_SEGMENT_CHARS) return out;
  return `${cutBeforeEscape(out, LONG_PREFIX_CHARS)}~${createHash('sha256').update(wtf8(name)).digest('hex')}`;
}

/**
 * Inverse of {@link encodeIriSegment} for short forms; null for a hashed long form or text that no
 * name encodes to. `decodeIriSegment(encodeIriSegment(x)) === x` for every short-form `x`.
 */
export function decodeIriSegment(segment: string): string | null {
  if (segment === '~') return '';
  if (segment.includes('~')) return null;
  const units: number[] = [];
  let i = 0;
  while (i < segment.length) {
    if (segment[i] === '%') {
      const bytes: number[] = [];
      while (segment[i] === '%') {
        const byte = Number.parseInt(segment.slice(i + 1, i + 3), 16);
        if (!/^[0-9A-F]{2}$/.test(segment.slice(i + 1, i + 3))) return null;
        bytes.push(byte);
        i += 3;
      }
      const decoded = decodeWtf8(bytes);
      if (decoded === null) return null;
      units.push(...decoded);
    } else {
      const cp = segment.codePointAt(i) as number;
      units.push(
        ...(segment[i] === '_'
          ? [0x20]
          : String.fromCodePoint(cp)
              .split('')
              .map((c) => c.charCodeAt(0))),
      );
      i += cp > 0xffff ? 2 : 1;
    }
  }
  return String.fromCharCode(...units);
}

// Letters, marks and digits of any script below the tag/variation-selector planes (U+E0000+),
// which RFC 3987 leaves out of `ucschar`.
const KEPT = /^[\p{L}\p{M}\p{N}-]$/u;
function isKept(ch: string, cp: number): boolean {
  return cp < 0xe0000 && (cp < 0x80 ? /^[A-Za-z0-9-]$/.test(ch) : KEPT.test(ch));
}

function percentEncode(cp: number): string {
  let out = '';
  for (const byte of wtf8Bytes(cp)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

/** UTF-8 extended to lone surrogates (WTF-8): a bijection from UTF-16 code unit strings to bytes. */
function wtf8(text: string): Uint8Array {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i) as number;
    bytes.push(...wtf8Bytes(cp));
    if (cp > 0xffff) i++;
  }
  return Uint8Array.from(bytes);
}

function wtf8Bytes(cp: number): number[] {
  if (cp < 0x80) return [cp];
  if (cp < 0x800) return [0xc0 | (cp >> 6), 0x80 | (cp & 0x3f)];
  if (cp < 0x10000) return [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)];
  return [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)];
}

function decodeWtf8(bytes: readonly number[]): number[] | null {
  const units: number[] = [];
  let i = 0;
  while (i < bytes.length) {
    const b0 = bytes[i] as number;
    const need = b0 < 0x80 ? 0 : b0 >= 0xf0 ? 3 : b0 >= 0xe0 ? 2 : b0 >= 0xc0 ? 1 : -1;
    if (need < 0 || i + need > bytes.length - 1) return null;
    let cp = need === 0 ? b0 : b0 & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const b = bytes[i + k] as number;
      if ((b & 0xc0) !== 0x80) return null;
      cp = (cp << 6) | (b & 0x3f);
    }
    if (cp > 0xffff) units.push(0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff));
    else units.push(cp);
    i += need + 1;
  }
  return units;
}

/** At most `max` chars of an encoded segment, never splitting a `%XX` escape. */
function cutBeforeEscape(encoded: string, max: number): string {
  let cut = encoded.slice(0, max);
  const pct = cut.lastIndexOf('%');
  if (pct >= 0 && pct > cut.length - 3) cut = cut.slice(0, pct);
  // Keep whole code points (a high surrogate alone would make the IRI invalid).
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  return cut;
}

function hasLoneSurrogate(text: string): boolean {
  return /\p{Cs}/u.test(text);
}

import type { Span } from './types.js';

/**
 * V8's Intl.Segmenter costs time proportional to the whole input per segment (a 100k-character
 * string takes seconds to split into words), so text is fed to it in windows of this many
 * characters; each window's last segment is re-read at the start of the next one, so windows
 * only cut inside a segment longer than a whole window.
 */
const WINDOW = 16_384;
const THAI = /\p{Script=Thai}/u;
// Thai marks sentence ends with a space and no punctuation; ICU's sentence rules do not split there.
const THAI_SENTENCE_GAP = /(?<=\p{Script=Thai})[ \u00a0]+(?=\p{Script=Thai})/gu;

const segmenters = new Map<string, Intl.Segmenter>();
function segmenter(locale: string | undefined, granularity: 'sentence' | 'word'): Intl.Segmenter {
  const key = `${locale ?? ''}|${granularity}`;
  let s = segmenters.get(key);
  if (!s) {
    try {
      s = new Intl.Segmenter(locale && locale !== 'und' ? locale : undefined, { granularity });
    } catch {
      s = new Intl.Segmenter(undefined, { granularity }); // malformed locale tag: root rules
    }
    segmenters.set(key, s);
  }
  return s;
}

/** Segments of `[start, end)` with absolute offsets, segmenting in bounded windows (see {@link WINDOW}). */
function* segments(seg: Intl.Segmenter, text: string, start: number, end: number): Generator<Intl.SegmentData> {
  let from = start;
  while (from < end) {
    let to = Math.min(from + WINDOW, end);
    if (to < end) {
      const space = text.lastIndexOf(' ', to - 1);
      if (space > from + WINDOW / 2) to = space + 1; // a forced cut inside one huge segment lands on a space
    }
    const parts = [...seg.segment(text.slice(from, to))];
    let next = to;
    if (to < end && parts.length > 1) next = from + parts.pop()!.index;
    for (const p of parts) yield { ...p, index: from + p.index, input: text };
    from = next;
  }
}

/** Narrows a span to exclude leading and trailing whitespace; undefined when nothing is left. */
export function trimSpan(text: string, span: Span): Span | undefined {
  let { start, end } = span;
  while (start < end && /\s/u.test(text[start]!)) start++;
  while (end > start && /\s/u.test(text[end - 1]!)) end--;
  return start < end ? { start, end } : undefined;
}

/**
 * Sentence spans (trimmed, non-empty, ascending) with Intl.Segmenter under the document's
 * language as locale; Chinese and Japanese split at 。！？, Thai additionally at spaces between
 * Thai words. A line break always ends a sentence.
 */
export function splitSentences(text: string, locale?: string, span: Span = { start: 0, end: text.length }): Span[] {
  const out: Span[] = [];
  const seg = segmenter(locale, 'sentence');
  for (const s of segments(seg, text, span.start, span.end)) {
    const start = s.index;
    const sentence = trimSpan(text, { start, end: start + s.segment.length });
    if (!sentence) continue;
    if (!THAI.test(s.segment)) {
      out.push(sentence);
      continue;
    }
    let from = sentence.start;
    const part = text.slice(sentence.start, sentence.end);
    for (const gap of part.matchAll(THAI_SENTENCE_GAP)) {
      out.push({ start: from, end: sentence.start + gap.index });
      from = sentence.start + gap.index + gap[0].length;
    }
    out.push({ start: from, end: sentence.end });
  }
  return out;
}

/** Word-like segments (no spaces or punctuation) with dictionary-based splitting for zh, ja, th. */
export function splitWords(text: string, locale?: string): (Span & { word: string })[] {
  const out: (Span & { word: string })[] = [];
  const seg = segmenter(locale, 'word');
  for (const s of segments(seg, text, 0, text.length)) {
    if (s.isWordLike) out.push({ start: s.index, end: s.index + s.segment.length, word: s.segment });
  }
  return out;
}

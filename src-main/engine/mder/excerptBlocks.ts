import { fence } from '../base/fence.js';

/** An entity of one Disambiguate call: its line, its name and the text it was found in. */
export interface ExcerptEntity {
  /** `E1: "name" (type)`, as the prompt writes it. */
  line: string;
  name: string;
  context: string;
}

/**
 * The `<entities>` section of a Disambiguate call: each entity with up to `maxChars` of its
 * context around its first mention, but one excerpt for the entities whose windows overlap in the
 * same text (a passage's names are often asked about together: "1960" and "1963", "The Journal"
 * and "Journal of …"), their lines above it. The joined excerpt holds every character each window
 * held, so each entity reads the context it did, in fewer tokens.
 */
export function excerptBlocks(entities: readonly ExcerptEntity[], maxChars: number): string {
  const windows = entities
    .map((e, order) => ({ e, order, window: windowAround(e.context, e.name, maxChars) }))
    .sort((a, b) => (a.e.context < b.e.context ? -1 : a.e.context > b.e.context ? 1 : a.window[0] - b.window[0]));
  const spans: { context: string; start: number; end: number; members: typeof windows }[] = [];
  for (const w of windows) {
    const last = spans.at(-1);
    if (last && last.context === w.e.context && w.window[0] <= last.end) {
      last.end = Math.max(last.end, w.window[1]);
      last.members.push(w);
    } else spans.push({ context: w.e.context, start: w.window[0], end: w.window[1], members: [w] });
  }
  const first = (s: (typeof spans)[number]): number => Math.min(...s.members.map((m) => m.order));
  return spans
    .sort((a, b) => first(a) - first(b))
    .map((s) => {
      const lines = s.members.sort((a, b) => a.order - b.order).map((m) => m.e.line);
      return `${lines.join('\n')}\n<document>\n${fence(excerpt(s.context, s.start, s.end))}\n</document>`;
    })
    .join('\n\n');
}

/** Where the excerpt of `text` starts and ends: `maxChars` centred on the first mention of `name` (case-insensitive). */
function windowAround(text: string, name: string, maxChars: number): [number, number] {
  if (text.length <= maxChars) return [0, text.length];
  const at = text.toLowerCase().indexOf(name.toLowerCase());
  const start = Math.max(0, Math.min(text.length - maxChars, (at < 0 ? 0 : at) - Math.floor(maxChars / 3)));
  return [start, start + maxChars];
}

function excerpt(text: string, start: number, end: number): string {
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}

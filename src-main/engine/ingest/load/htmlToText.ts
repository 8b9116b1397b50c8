/** Elements whose content is never document text. */
const SKIP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object', 'canvas', 'head', 'button', 'select', 'input', 'textarea']);
/** Page chrome, dropped when extracting a whole body (Readability already drops it from articles). */
export const CHROME = new Set(['nav', 'header', 'footer', 'aside', 'form', 'menu']);
const BLOCK = new Set([
  'address', 'article', 'blockquote', 'body', 'caption', 'dd', 'details', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure',
  'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'summary',
  'table', 'tbody', 'thead', 'tfoot', 'tr', 'ul', 'br',
]);
const CELL = new Set(['td', 'th']);

/** The parts of a DOM node this walker needs (linkedom and browsers both provide them). */
interface DomNode {
  nodeType: number;
  nodeName: string;
  nodeValue: string | null;
  firstChild: DomNode | null;
  nextSibling: DomNode | null;
}

/** Collapses runs of spaces inside lines and keeps at most one blank line between blocks. */
export function tidyText(text: string): string {
  return text
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * Block-aware text of a DOM subtree: blocks become lines, cells are separated by tabs.
 * Iterative (explicit stack), so pathological nesting cannot overflow the call stack.
 */
export function domToText(root: DomNode, options: { dropChrome?: boolean } = {}): string {
  const parts: string[] = [];
  // Frames: a node to enter, or a marker to close a block after its children.
  const stack: (DomNode | string)[] = [root];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item === 'string') {
      parts.push(item);
      continue;
    }
    if (item.nodeType === 3) {
      parts.push(item.nodeValue ?? '');
      continue;
    }
    if (item.nodeType !== 1 && item.nodeType !== 9 && item.nodeType !== 11) continue;
    const tag = item.nodeName.toLowerCase();
    if (SKIP.has(tag) || (options.dropChrome && CHROME.has(tag))) continue;
    const block = BLOCK.has(tag);
    if (block) parts.push('\n');
    if (block) stack.push('\n');
    else if (CELL.has(tag)) stack.push('\t');
    const children: DomNode[] = [];
    for (let c = item.firstChild; c; c = c.nextSibling) children.push(c);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return tidyText(parts.join('').replace(/\n[ \t]+/g, '\n'));
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', mdash: '—', ndash: '–', hellip: '…', copy: '©' };

/** Decodes numeric and the common named character references (enough for the no-DOM fallback). */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (all, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : all;
    }
    return NAMED[ref.toLowerCase()] ?? all;
  });
}

/**
 * Text of HTML without building a DOM (linear regex passes): used when nesting is too deep for a
 * DOM library to handle in bounded time and stack.
 */
export function stripHtml(html: string): string {
  const body = html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style|noscript|template|svg|head)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<\/?(p|div|br|li|h[1-6]|tr|section|article|blockquote|pre|table|ul|ol|dd|dt|hr)\b[^>]*>/gi, '\n')
    .replace(/<[^>]*>/g, '');
  return tidyText(decodeEntities(body));
}

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
// Often left unclosed in real pages; counting them would make sloppy HTML look deep.
const IMPLIED_END = new Set(['p', 'li', 'dt', 'dd', 'option', 'tr', 'td', 'th', 'tbody', 'thead', 'tfoot']);

/** Deepest element nesting, from a linear scan of the tags (a cheap guard before DOM parsing). */
export function htmlNestingDepth(html: string): number {
  let depth = 0;
  let max = 0;
  for (const m of html.matchAll(/<(\/?)([a-zA-Z][\w:-]*)[^>]*?(\/?)>/g)) {
    const tag = m[2]!.toLowerCase();
    if (IMPLIED_END.has(tag)) continue;
    if (m[1]) depth = Math.max(0, depth - 1);
    else if (!m[3] && !VOID.has(tag)) max = Math.max(max, ++depth);
  }
  return max;
}

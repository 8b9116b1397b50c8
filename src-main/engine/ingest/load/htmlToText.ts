import { decodeHTMLStrict } from 'entities';
/** Elements whose content is never document text. */
const SKIP = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'iframe',
  'object',
  'canvas',
  'head',
  'button',
  'select',
  'input',
  'textarea',
]);
/** MathML annotations repeat the formula in another notation (TeX, content MathML). */
const MATH_SKIP = new Set(['annotation', 'annotation-xml']);
/** MathML layouts whose two parts are joined by an operator in text. */
const MATH_JOIN: Readonly<Record<string, string>> = { msup: '^', msub: '_', mfrac: '/' };
/** Navigation and page furniture, dropped from articles and bodies alike. */
const CHROME = new Set(['nav', 'footer', 'aside', 'form', 'menu']);
/** A site header is chrome on a whole body; inside an article it holds the headline. */
const BODY_CHROME = new Set([...CHROME, 'header']);
/** Blocks separated by a blank line. */
const PARAGRAPH = new Set([
  'address',
  'article',
  'blockquote',
  'body',
  'details',
  'dl',
  'fieldset',
  'figure',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'main',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'ul',
]);
/** Blocks on their own line. */
const LINE = new Set([
  'br',
  'caption',
  'dd',
  'div',
  'dt',
  'figcaption',
  'li',
  'summary',
  'tr',
  'thead',
  'tbody',
  'tfoot',
]);
const CELL = new Set(['td', 'th']);

/** The parts of a DOM node this walker needs (linkedom and browsers both provide them). */
interface DomNode {
  nodeType: number;
  nodeName: string;
  nodeValue: string | null;
  firstChild: DomNode | null;
  nextSibling: DomNode | null;
  getAttribute?(name: string): string | null;
}

/** Collapses runs of spaces inside lines and keeps at most one blank line between blocks. */
export function tidyText(text: string): string {
  return text
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

// Break markers (control characters never kept from text nodes): one wins over its neighbours
// instead of adding up, so a list item inside a list is one line break, not three.
const LINE_BREAK = '\u0001';
const PARA_BREAK = '\u0002';
const PRE_EXIT = 0;
const MATH_EXIT = 1;

/**
 * Block-aware text of a DOM subtree: paragraphs are separated by a blank line, list items and
 * rows start a line, cells are separated by tabs, source whitespace collapses (except in
 * `pre`); MathML becomes its `alttext`, or its tokens with `^`, `_`, `/` for powers, indices and
 * fractions. Iterative (explicit stack), so pathological nesting cannot overflow the call stack.
 */
export function domToText(root: DomNode, options: { whole?: boolean } = {}): string {
  const chrome = options.whole ? BODY_CHROME : CHROME;
  const parts: string[] = [];
  let pre = 0;
  let math = 0;
  // Frames: a node to enter, a string to emit once its element's children are done, or the exit
  // of a `pre` (PRE_EXIT) or `math` (MATH_EXIT) element.
  const stack: (DomNode | string | number)[] = [root];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item === 'string') {
      parts.push(item);
      continue;
    }
    if (typeof item === 'number') {
      if (item === PRE_EXIT) pre--;
      else math--;
      continue;
    }
    if (item.nodeType === 3) {
      const value = (item.nodeValue ?? '').replace(/[\u0001\u0002]/g, '');
      // Whitespace between MathML elements is layout, not text.
      if (math > 0) {
        parts.push(value.trim());
        continue;
      }
      parts.push(pre > 0 ? value.replace(/\r?\n/g, LINE_BREAK) : value.replace(/\s+/g, ' '));
      continue;
    }
    if (item.nodeType !== 1 && item.nodeType !== 9 && item.nodeType !== 11) continue;
    const tag = item.nodeName.toLowerCase();
    if (SKIP.has(tag) || chrome.has(tag) || MATH_SKIP.has(tag)) continue;
    const alttext = tag === 'math' ? item.getAttribute?.('alttext')?.trim() : undefined;
    if (alttext) {
      parts.push(` ${alttext} `);
      continue;
    }
    const brk = PARAGRAPH.has(tag) ? PARA_BREAK : LINE.has(tag) ? LINE_BREAK : CELL.has(tag) ? '\t' : '';
    if (brk && brk !== '\t') parts.push(brk);
    if (brk) stack.push(brk);
    if (tag === 'pre') {
      pre++;
      stack.push(PRE_EXIT);
    }
    if (tag === 'math') {
      math++;
      stack.push(MATH_EXIT);
    }
    const children: DomNode[] = [];
    for (let c = item.firstChild; c; c = c.nextSibling) children.push(c);
    const join = MATH_JOIN[tag];
    // The operator goes before the second element (source whitespace between them is text nodes).
    const second = join ? children.filter((c) => c.nodeType === 1)[1] : undefined;
    for (let i = children.length - 1; i >= 0; i--) {
      stack.push(children[i]!);
      if (children[i] === second) stack.push(join!);
    }
  }
  const joined = parts
    .join('')
    .replace(/[ \t]*[\u0001\u0002][\s\u0001\u0002]*/g, (run) => (run.includes(PARA_BREAK) ? '\n\n' : '\n'));
  return tidyText(joined);
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
  return tidyText(decodeHTMLStrict(body));
}

const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
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

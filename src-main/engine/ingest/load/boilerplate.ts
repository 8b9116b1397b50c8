/** The parts of a DOM node this module needs (linkedom provides them; only elements have attributes). */
interface Element {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  firstChild: Element | null;
  nextSibling: Element | null;
  getAttribute?(name: string): string | null;
  remove(): void;
}

interface DocumentLike<E extends Element> {
  body: E | null;
  querySelectorAll(selector: string): Iterable<E>;
}

/** Blocks whose text is mostly link text are menus, tag clouds and "read more" lists. */
const MAX_LINK_DENSITY = 0.5;
/** A link-dense block is furniture only with several links: one linked phrase is a caption or a title. */
const MIN_LINKS = 3;
/**
 * A block is not dropped for its name when it holds more than this share of the text: a "share"
 * wrapper around a whole article, or a section with a `sharing-` id, is not a share bar.
 */
const MAX_NAMED_SHARE = 0.5;
/** Class and id words that name page furniture rather than content (as Readability's own list does). */
const FURNITURE =
  /(^|[\s_-])(comments?|sidebar|related|share|sharing|social|promo|advert|ads|banner|cookie|newsletter|breadcrumbs?|menu|navbar|footer|masthead|popular|trending|subscribe)([\s_-]|$)/i;
const BLOCKS = new Set([
  'div',
  'section',
  'ul',
  'ol',
  'dl',
  'table',
  'p',
  'li',
  'aside',
  'header',
  'footer',
  'nav',
  'form',
  'span',
  'figure',
]);
/** Link density judges containers only: a paragraph or list item dense with links is content (Wikipedia). */
const TEXT_BLOCKS = new Set(['p', 'li', 'span', 'figure']);

const textLength = (e: Element) => (e.textContent ?? '').replace(/\s+/g, ' ').trim().length;

/**
 * The element holding a page's main content when Readability found no article: the `main`
 * landmark (or `role="main"`), else the longest `article`, else the body.
 */
export function mainLandmark<E extends Element>(document: DocumentLike<E>): E | null {
  for (const main of document.querySelectorAll('main, [role="main"]')) if (textLength(main) > 0) return main;
  let best: E | null = null;
  for (const article of document.querySelectorAll('article'))
    if (!best || textLength(article) > textLength(best)) best = article;
  return best && textLength(best) > 0 ? best : document.body;
}

/**
 * Removes page furniture under `root`: containers whose text is mostly the text of several links
 * (menus, link lists) and blocks whose class or id names furniture (comments, sidebars, share
 * bars…) unless it holds most of the text. One post-order pass computes text
 * and link-text lengths, so the cost is linear in the tree.
 */
export function dropBoilerplate(root: Element): void {
  const lengths = new Map<Element, { text: number; links: number; anchors: number }>();
  const doomed: Element[] = [];
  const named: { node: Element; text: number }[] = [];
  // Post-order without recursion: visit children first, then the parent (a second visit).
  const stack: { node: Element; done: boolean }[] = [{ node: root, done: false }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const { node } = frame;
    if (node.nodeType === 3) {
      const n = (node.textContent ?? '').replace(/\s+/g, ' ').length;
      lengths.set(node, { text: n, links: 0, anchors: 0 });
      continue;
    }
    if (node.nodeType !== 1) continue;
    if (!frame.done) {
      stack.push({ node, done: true });
      for (let c = node.firstChild; c; c = c.nextSibling) stack.push({ node: c, done: false });
      continue;
    }
    let text = 0;
    let links = 0;
    let anchors = 0;
    for (let c = node.firstChild; c; c = c.nextSibling) {
      const l = lengths.get(c);
      if (l) {
        text += l.text;
        links += l.links;
        anchors += l.anchors;
      }
    }
    const tag = node.nodeName.toLowerCase();
    if (tag === 'a') {
      links = text;
      anchors += 1;
    }
    lengths.set(node, { text, links, anchors });
    if (node === root || !BLOCKS.has(tag)) continue;
    const hint = `${node.getAttribute?.('class') ?? ''} ${node.getAttribute?.('id') ?? ''}`;
    const linkDense = !TEXT_BLOCKS.has(tag) && anchors >= MIN_LINKS && text > 0 && links / text > MAX_LINK_DENSITY;
    if (linkDense) doomed.push(node);
    else if (FURNITURE.test(hint)) named.push({ node, text });
  }
  const total = lengths.get(root)?.text ?? 0;
  for (const { node, text } of named) if (text <= MAX_NAMED_SHARE * total) doomed.push(node);
  for (const node of doomed) node.remove();
}

import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { primaryLanguage } from '../detectLanguage.js';
import type { LoadedText } from '../types.js';
import { dropBoilerplate, mainLandmark } from './boilerplate.js';
import { domToText, htmlNestingDepth, stripHtml } from './htmlToText.js';

export interface HtmlToDocumentOptions {
  /**
   * Deeper element nesting skips the DOM (parse time and recursion in DOM libraries grow with
   * depth; 100,000 levels take linkedom + Readability minutes) and strips tags instead.
   * Default: 500.
   */
  maxDepth?: number;
  /** Pages with more elements skip Readability and keep the body text without furniture. Default: 50,000. */
  maxElements?: number;
}

/**
 * Readability's article is kept when it has this many characters (Readability's own threshold
 * for an article), or this share of the body's text: a short article on a long portal page is
 * still the article, a fragment of a long page is not.
 */
const MIN_ARTICLE_CHARS = 500;
const MIN_ARTICLE_SHARE = 0.2;

/**
 * Main content of an HTML page: Readability (on linkedom's DOM) picks the article and drops
 * navigation (link lists left inside it are dropped too); when it finds none (or only a fragment), the `main` landmark (else the longest
 * `article`, else the body) without nav/header/footer/aside, link-dense blocks and blocks named
 * as furniture (comments, sidebars, share bars). The page's title opens the text (Readability drops
 * an h1 that repeats it, and a title only in metadata would be neither searched nor shown).
 */
export function loadHtml(html: string, options: HtmlToDocumentOptions = {}): LoadedText {
  const { maxDepth = 500, maxElements = 50_000 } = options;
  const mime = 'text/html';
  const titleMatch = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html);
  const rawTitle = titleMatch ? stripHtml(titleMatch[1]!) : '';
  const lang = primaryLanguage(/<html\b[^>]*\blang\s*=\s*["']?([\w-]+)/i.exec(html)?.[1]);
  const meta = { mime, ...(rawTitle ? { title: rawTitle } : {}), ...(lang ? { language: lang } : {}) };
  if (htmlNestingDepth(html) > maxDepth) return { text: stripHtml(html), ...meta };

  const { document } = parseHTML(html);
  if (!document.body) return { text: stripHtml(html), ...meta };
  // Read before Readability, which removes the h1 that repeats the title.
  const headings = [...document.getElementsByTagName('h1')].slice(0, 5).map((h) => oneLine(h.textContent ?? ''));
  const bodyText = domToText(document.body, { whole: true });
  let fallbackDocument = document;
  if (document.getElementsByTagName('*').length <= maxElements) {
    const article = new Readability(document as unknown as Document).parse();
    if (article?.content) {
      // Readability keeps link lists inside the article's container (related links, tags).
      const articleBody = parseHTML(`<html><body>${article.content}</body></html>`).document.body;
      dropBoilerplate(articleBody);
      const articleText = domToText(articleBody);
      if (articleText.length >= MIN_ARTICLE_CHARS || articleText.length >= bodyText.length * MIN_ARTICLE_SHARE) {
        return titled(articleText, pageTitle(article.title || rawTitle, headings), meta);
      }
    }
    // Readability changed the DOM it read: the fallback starts from a fresh one.
    fallbackDocument = parseHTML(html).document;
  }
  const main = mainLandmark(fallbackDocument)!;
  dropBoilerplate(main);
  const text = domToText(main, { whole: true }) || bodyText;
  return titled(text, pageTitle(rawTitle, headings), meta);
}

/** The text opened by the page's title, which is also the document's title (the site's name left out, as shown). */
function titled<M extends { title?: string }>(text: string, title: string, meta: M): M & { text: string } {
  return { ...meta, text: withTitle(text, title), ...(title ? { title } : {}) };
}

/** Separators between a page's title and its site's name ("Title | Site", "Title - Site", "Site » Title"). */
const TITLE_SEPARATOR = /\s+[|\-\u2013\u2014\u00b7\u00bb\u00ab]\s+/;
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
const comparable = (text: string) => oneLine(text).toLowerCase();

/**
 * The page's own title: an h1 that is the `<title>` or a run of its parts between separators
 * (the title without the site's name), or that starts with its first part (a fuller heading);
 * else the `<title>` as given (with no h1 to compare, a site name cannot be told from a subtitle).
 */
function pageTitle(title: string, headings: readonly string[]): string {
  const parts = oneLine(title).split(TITLE_SEPARATOR).map(comparable).filter(Boolean);
  if (parts.length === 0) return '';
  const runs = new Set<string>();
  for (let i = 0; i < parts.length; i++)
    for (let j = i + 1; j <= parts.length; j++) runs.add(parts.slice(i, j).join(' '));
  const heading = headings.find((h) => {
    const c = comparable(h).split(TITLE_SEPARATOR).join(' ');
    return c !== '' && (runs.has(c) || c.startsWith(`${parts[0]} `));
  });
  return heading ?? oneLine(title);
}

/** The title as the text's first line, unless the text already opens with it (an h1 Readability kept). */
function withTitle(text: string, title: string): string {
  if (!title || !text) return text;
  const first = comparable(text.slice(0, text.indexOf('\n') + 1 || text.length));
  return first === comparable(title) ? text : `${title}\n\n${text}`;
}

/**
 * All of an HTML or XHTML body's text (a chapter of a book, not a web page: nothing is dropped
 * as furniture), tags stripped instead past `maxDepth` levels of nesting.
 */
export function htmlBodyText(html: string, maxDepth = 500): string {
  if (htmlNestingDepth(html) > maxDepth) return stripHtml(html);
  const { document } = parseHTML(html);
  return document.body ? domToText(document.body, { whole: true }) : stripHtml(html);
}

import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { primaryLanguage } from '../detectLanguage.js';
import type { LoadedText } from '../types.js';
import { domToText, htmlNestingDepth, stripHtml } from './htmlToText.js';

export interface HtmlToDocumentOptions {
  /**
   * Deeper element nesting skips the DOM (parse time and recursion in DOM libraries grow with
   * depth; 100,000 levels take linkedom + Readability minutes) and strips tags instead.
   * Default: 500.
   */
  maxDepth?: number;
  /** Pages with more elements skip Readability and keep the body text. Default: 50,000. */
  maxElements?: number;
}

/** Readability's article is used only when it keeps at least this share of the body's text. */
const MIN_ARTICLE_SHARE = 0.2;

/**
 * Main content of an HTML page: Readability (on linkedom's DOM) picks the article and drops
 * navigation; when it finds none (or too little), the body text without nav/header/footer/aside.
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
  const bodyText = document.body ? domToText(document.body, { whole: true }) : stripHtml(html);
  if (document.getElementsByTagName('*').length <= maxElements) {
    const article = new Readability(document as unknown as Document).parse();
    if (article?.content) {
      const articleText = domToText(parseHTML(`<html><body>${article.content}</body></html>`).document.body);
      if (articleText.length >= bodyText.length * MIN_ARTICLE_SHARE) {
        return { text: articleText, ...meta, ...(article.title ? { title: article.title } : {}) };
      }
    }
  }
  return { text: bodyText, ...meta };
}

import { StringDecoder } from 'node:string_decoder';
import { Parser, type Handler } from 'htmlparser2';

const FEED_CHARS = 1 << 20;

/** An element's name without its namespace prefix (`w:t` → `t`). */
export const localName = (name: string): string => name.slice(name.indexOf(':') + 1);

/**
 * Streams an XML part through htmlparser2 (XML mode, entities decoded) a MiB at a time, so
 * memory stays near the XML's size plus what the handlers keep, never a DOM's many times that.
 */
export function parseXml(xml: Buffer, handlers: Partial<Handler>): void {
  const parser = new Parser(handlers, { xmlMode: true, decodeEntities: true });
  const decoder = new StringDecoder('utf8');
  for (let i = 0; i < xml.length; i += FEED_CHARS) parser.write(decoder.write(xml.subarray(i, i + FEED_CHARS)));
  parser.write(decoder.end());
  parser.end();
}

/** No space before a tab, trailing spaces and tabs off lines, at most one blank line, no outer whitespace. */
export function tidyText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/ +\t/g, '\t')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

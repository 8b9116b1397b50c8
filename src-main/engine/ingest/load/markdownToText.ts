import { decodeHTMLStrict } from 'entities';

/** Inline markup → its visible text: images keep their alt text, links their label. */
function inline(line: string): string {
  return decodeHTMLStrict(
    line
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
      .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1')
      .replace(/<(https?:\/\/[^>\s]+|[^>\s@]+@[^>\s]+)>/g, '$1')
      .replace(/<\/?[a-zA-Z][^>]*>/g, '')
      .replace(/(`+)(.+?)\1/g, '$2')
      .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, '$2')
      .replace(/(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])/g, '$1')
      .replace(/(?<![\w_])_(?=\S)(.+?)(?<=\S)_(?![\w_])/g, '$1')
      .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, '$1')
      .replace(/\\([\\`*_{}[\]()#+\-.!|~<>])/g, '$1'),
  );
}

/**
 * Plain text of a Markdown document, keeping all content (code included) and dropping markup:
 * front matter, heading and list markers, quotes, emphasis, link targets, table rules.
 * Line-based and linear; no Markdown library is installed and the text only feeds chunking.
 * The first heading is the title.
 */
export function markdownToText(markdown: string): { text: string; title?: string } {
  const lines = markdown.split('\n');
  const out: string[] = [];
  let title: string | undefined;
  let i = 0;
  if (lines[0]?.trim() === '---') {
    const end = lines.indexOf('---', 1);
    if (end > 0) i = end + 1;
  }
  let fence: string | undefined;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    const fenceMatch = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (fenceMatch && fenceMatch[1]![0] === fence[0] && fenceMatch[1]!.length >= fence.length) fence = undefined;
      else out.push(line);
      continue;
    }
    if (fenceMatch) {
      fence = fenceMatch[1];
      continue;
    }
    if (/^\s{0,3}\[[^\]]+\]:\s*\S/.test(line)) continue; // link reference definition
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line) || /^\s{0,3}(=+|-+)\s*$/.test(line)) continue; // rule / setext underline
    if (/^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(line)) continue; // table alignment row
    let text = line.replace(/^\s{0,3}(>\s?)+/, '');
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(\s+#+)?\s*$/.exec(text);
    if (heading) text = heading[1]!;
    else text = text.replace(/^(\s*)([-*+]|\d{1,9}[.)])\s+(\[[ xX]\]\s+)?/, '$1');
    if (/^\s*\|.*\|\s*$/.test(text))
      text = text
        .trim()
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim())
        .join('\t');
    text = inline(text);
    if (heading && title === undefined && text.trim()) title = text.trim();
    out.push(text);
  }
  return {
    text: out
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim(),
    ...(title === undefined ? {} : { title }),
  };
}

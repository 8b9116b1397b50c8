import type { ReactNode } from 'react';
import { TableScroll } from './TableScroll.js';

/**
 * Renders the small Markdown subset reports use (headings, pipe tables, lists, fenced code,
 * paragraphs) as React elements: no HTML injection, so a report can never run script.
 */
export function Markdown({ text }: { text: string }) {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: ReactNode[] = [];
  let i = 0;
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\|/, '')
      .replace(/\|$/, '')
      .split('|')
      .map((c) => c.trim());
  while (i < lines.length) {
    const line = lines[i]!;
    const key = blocks.length;
    if (line.startsWith('```')) {
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) body.push(lines[i]!);
      i++;
      blocks.push(<pre key={key}>{body.join('\n')}</pre>);
    } else if (/^#{1,6}\s/.test(line)) {
      const level = Math.min(6, line.indexOf(' ') + 2); // keep below the screen's own h1/h2
      const Tag = `h${Math.min(level, 6)}` as 'h3';
      blocks.push(<Tag key={key}>{line.replace(/^#+\s*/, '')}</Tag>);
      i++;
    } else if (line.trim().startsWith('|') && /^\s*\|?\s*:?-{3,}/.test(lines[i + 1] ?? '')) {
      const head = cells(line);
      const rows: string[][] = [];
      for (i += 2; i < lines.length && lines[i]!.trim().startsWith('|'); i++) rows.push(cells(lines[i]!));
      blocks.push(
        <TableScroll key={key}>
          <table>
            <thead>
              <tr>
                {head.map((h, j) => (
                  <th key={j}>{h}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r, j) => (
                <tr key={j}>
                  {r.map((c, k) => (
                    <td key={k}>{c}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>,
      );
    } else if (/^\s*[-*]\s/.test(line)) {
      const items: string[] = [];
      for (; i < lines.length && /^\s*[-*]\s/.test(lines[i]!); i++) items.push(lines[i]!.replace(/^\s*[-*]\s/, ''));
      blocks.push(
        <ul key={key}>
          {items.map((it, j) => (
            <li key={j}>{it}</li>
          ))}
        </ul>,
      );
    } else if (line.trim() === '') {
      i++;
    } else {
      const para: string[] = [];
      for (; i < lines.length && lines[i]!.trim() !== '' && !/^(#|```|\||\s*[-*]\s)/.test(lines[i]!); i++)
        para.push(lines[i]!);
      if (para.length === 0) para.push(lines[i++]!);
      blocks.push(<p key={key}>{para.join(' ')}</p>);
    }
  }
  return <div className="markdown">{blocks}</div>;
}

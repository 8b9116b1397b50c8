import type { Command } from 'commander';
import type { DocumentPageText } from '../engine/api/contract.js';
import { CliError, type CliContext } from './CliContext.js';
import { documentIdArg } from './documentCommands.js';

/** How the passage is marked on its page: underlined on a terminal, between » « when piped. */
export interface PassageMarks {
  open: string;
  close: string;
}

export const PLAIN_MARKS: PassageMarks = { open: '»', close: '«' };
export const UNDERLINE_MARKS: PassageMarks = { open: '\x1b[4m', close: '\x1b[24m' };

/** The page's text with its passage between `marks`. */
export function markedPassage(page: Pick<DocumentPageText, 'text' | 'passage'>, marks: PassageMarks): string {
  const { start, end } = page.passage;
  return `${page.text.slice(0, start)}${marks.open}${page.text.slice(start, end)}${marks.close}${page.text.slice(end)}`;
}

/** `START-END` as `polyhop ask` prints a citation's character offsets. */
function parseSpan(span: string): { startOffset: number; endOffset: number } {
  const match = /^(\d+)-(\d+)$/.exec(span.trim());
  if (!match)
    throw new CliError(`"${span}" is not a passage: give its character offsets START-END, as ask prints them`);
  return { startOffset: Number(match[1]), endOffset: Number(match[2]) };
}

/** `polyhop source DOCUMENT START-END --kb NAME`: a cited passage on its page (Api `docs:page`). */
export function registerSourceCommand(program: Command, { call, out }: CliContext): void {
  program
    .command('source <documentId> <span>')
    .description('show a cited passage at its source: the page it is on, the passage marked (span: START-END)')
    .requiredOption('--kb <name>', 'knowledge base')
    .action(async (documentId: string, span: string, opts: { kb: string }) => {
      const id = documentIdArg(documentId);
      const offsets = parseSpan(span);
      const page = await call('docs:page', { kb: opts.kb, id, ...offsets }).catch((error: unknown) => {
        throw new CliError(`Passage ${span} of document ${id} in "${opts.kb}": ${(error as Error).message}`);
      });
      // Offsets past the document's text land on its last page with nothing of the passage on it.
      if (page.passage.start === page.passage.end && offsets.endOffset > offsets.startOffset)
        throw new CliError(
          `Passage ${span} of document ${id} ("${page.document.title}") is not in its text (its offsets lie past the text's end)`,
        );
      out(page, () => {
        const where = page.page === null ? 'whole text (no pages)' : `page ${page.page}`;
        const goesOn = page.continues ? ', continues on the next page' : '';
        console.log(`${page.document.title} (document ${id}), ${where}: passage ${span}${goesOn}\n`);
        console.log(markedPassage(page, process.stdout.isTTY ? UNDERLINE_MARKS : PLAIN_MARKS));
      });
    });
}

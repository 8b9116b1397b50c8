import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writePdf } from './pdfWriter.js';

/** The pages of the PDF the citation tests index beside the corpus: the island, then Penelope's wait. */
export const ITHACA_PAGES: readonly string[] = [
  'Ithaca is an island in the Ionian Sea. Odysseus was its king.',
  'Penelope waited twenty years for Odysseus.\nShe wove a shroud by day and undid it by night.',
];

/**
 * Writes that PDF (its pages, then `extraPages`) as `ithaca.pdf` in a new temporary folder whose
 * name starts with `prefix`; `remove` deletes the folder.
 */
export function writeIthacaPdf(
  prefix: string,
  extraPages: readonly string[] = [],
): { path: string; pages: readonly string[]; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const path = join(dir, 'ithaca.pdf');
  const pages = [...ITHACA_PAGES, ...extraPages];
  writeFileSync(path, writePdf({ pages }));
  return { path, pages, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

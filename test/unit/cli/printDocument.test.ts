import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DocumentDetail } from '../../../src-main/engine/api/contract.js';
import { printDocument } from '../../../src-main/cli/format.js';

const document: DocumentDetail['document'] = {
  id: 4,
  path: '/home/ada/letters/lease.pdf',
  title: 'lease',
  mime: 'application/pdf',
  size: 48213,
  language: 'it',
  status: 'indexed',
  error: 'ingest: pages 2, 3 read by OCR (mean confidence 71%; ita)',
  chunkCount: 6,
  tripleCount: 19,
  addedAt: '2026-12-08T00:00:00.000Z',
};

function printed(detail: Pick<DocumentDetail, 'document' | 'ocr'>): string {
  const lines: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
  printDocument(detail);
  return lines.join('\n');
}

afterEach(() => vi.restoreAllMocks());

/** `polyhop doc`'s text: a page read below the Corpus screen's confidence line is flagged, as there. */
describe('polyhop doc, printed', () => {
  it('flags the pages read below 60%, counts them, and leaves the others unflagged', () => {
    const out = printed({
      document,
      ocr: {
        languages: ['ita', 'eng'],
        pages: [
          { page: 2, confidence: 88, reason: 'no text layer' },
          { page: 3, confidence: 59, reason: 'unreadable text' },
        ],
      },
    });
    expect(out).toBe(
      [
        'lease (document 4)\n  /home/ada/letters/lease.pdf',
        '  application/pdf, 48213 bytes, it; indexed: 6 chunks, 19 triples',
        '  note: ingest: pages 2, 3 read by OCR (mean confidence 71%; ita)',
        '  OCR (ita+eng): 2 page(s); 1 below 60%, likely misread words (!)',
        '    page 2: 88% (no text layer)',
        '    page 3: 59% (unreadable text) !',
      ].join('\n'),
    );
  });

  it('a document OCR did not read prints no OCR line', () => {
    expect(printed({ document: { ...document, error: null }, ocr: null })).not.toContain('OCR');
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KnowledgeBase } from '../../../src-main/engine/kb/KnowledgeBase.js';
import type { OcrRecord } from '../../../src-main/engine/kb/views.js';
import { addDoc, createKb, tempDir } from './kbFixtures.js';

describe('DocumentOcrRepository: the pages of each document read by OCR', () => {
  let cleanup: () => void;
  let kb: KnowledgeBase;
  beforeEach(() => {
    let dir: string;
    ({ dir, cleanup } = tempDir());
    kb = createKb(dir);
  });
  afterEach(() => {
    kb.close();
    cleanup();
  });

  const scanned: OcrRecord = {
    languages: ['eng', 'chi_sim'],
    pages: [
      { page: 2, confidence: 91, reason: 'no text layer' },
      { page: 5, confidence: 41, reason: 'unreadable text' },
    ],
  };

  it('keeps the languages and each page with its confidence and reason, per document', () => {
    const a = addDoc(kb, '/a.pdf', 'a').id;
    const b = addDoc(kb, '/b.png', 'b').id;
    kb.ocr.replace(a, scanned);
    kb.ocr.replace(b, { languages: ['ita'], pages: [{ page: 1, confidence: 77.6, reason: 'image' }] });
    expect(kb.ocr.get(a)).toEqual(scanned);
    expect(kb.ocr.get(b)).toEqual({ languages: ['ita'], pages: [{ page: 1, confidence: 78, reason: 'image' }] });
    expect(kb.ocr.get(addDoc(kb, '/c.txt', 'c').id)).toBeUndefined();
  });

  it('the same document read again replaces its record: other pages, or none', () => {
    const a = addDoc(kb, '/a.pdf', 'a').id;
    kb.ocr.replace(a, scanned);
    kb.ocr.replace(a, { languages: ['eng'], pages: [{ page: 1, confidence: 60, reason: 'no text layer' }] });
    expect(kb.ocr.get(a)).toEqual({
      languages: ['eng'],
      pages: [{ page: 1, confidence: 60, reason: 'no text layer' }],
    });
    kb.ocr.replace(a, undefined);
    expect(kb.ocr.get(a)).toBeUndefined();
    kb.ocr.replace(a, { languages: ['eng'], pages: [] });
    expect(kb.ocr.get(a)).toBeUndefined();
  });

  it('goes with its document', () => {
    const a = addDoc(kb, '/a.pdf', 'a').id;
    const b = addDoc(kb, '/b.pdf', 'b').id;
    kb.ocr.replace(a, scanned);
    kb.ocr.replace(b, scanned);
    kb.documents.deleteDocument(a);
    expect(kb.ocr.get(a)).toBeUndefined();
    expect(kb.ocr.get(b)).toEqual(scanned);
  });
});

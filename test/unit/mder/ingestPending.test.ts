import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ingestPending, type IngestPendingOptions } from '../../../src-main/engine/mder/ingestPending.js';
import { sha256Hex } from '../../../src-main/engine/base/hash.js';
import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';
import { writeContentPdf } from '../../support/pdfBuilder.js';
import { CORPUS_FILES, corpusParagraphs } from '../../support/corpusScript.js';
import { openKb } from './support/corpusKb.js';

let dir: string;
let kb: KnowledgeBase;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'polyhop-mder-ingest-'));
  kb = openKb(join(dir, 'kb.sqlite'));
});
afterEach(() => {
  kb.close();
  rmSync(dir, { recursive: true, force: true });
});

const embedder = new NgramEmbedder(32);

/** Writes `bytes` to `name` and adds it to the KB as a pending document. */
function addFile(name: string, bytes: string | Buffer, mime: string) {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return kb.documents.addDocument({
    path,
    title: name,
    hash: sha256Hex(readFileSync(path)),
    mime,
    size: statSync(path).size,
    language: null,
  });
}

/** An e-mail message with a two-page PDF attached. */
function messageWithPdf(): string {
  const page = (text: string) => `BT /F1 12 Tf 72 700 Td (${text}) Tj ET`;
  const pdf = writeContentPdf([
    page('The rowing club met at the boathouse on Monday evening.'),
    page('The captain proposed a new boat for the summer regatta.'),
  ]);
  return [
    'From: secretary@club.example',
    'To: members@club.example',
    'Subject: Minutes of the meeting',
    'Message-ID: <minutes-1@club.example>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="minutes"',
    '',
    '--minutes',
    'Content-Type: text/plain; charset="utf-8"',
    '',
    'The minutes of Monday are attached.',
    '',
    '--minutes',
    'Content-Type: application/pdf',
    'Content-Disposition: attachment; filename="minutes.pdf"',
    'Content-Transfer-Encoding: base64',
    '',
    pdf.toString('base64').replace(/.{76}/g, '$&\n'),
    '--minutes--',
    '',
  ].join('\n');
}

describe('ingestPending', () => {
  it("stores a message's attachment as the document <file>#<part>, with its chunks and its pages", async () => {
    const mail = addFile('minutes.eml', messageWithPdf(), 'message/rfc822');
    const result = await ingestPending(kb, { embedder });
    expect(result.failed).toEqual([]);
    const parts = kb.documents.partsOf(mail.id);
    expect(parts.map((p) => [p.path, p.status])).toEqual([[`${mail.path}#attachment/1`, 'pending']]);
    expect(parts[0]!.chunkCount).toBeGreaterThan(0);
    expect(kb.pages.get(parts[0]!.id, 2)?.text).toBe('The captain proposed a new boat for the summer regatta.');
  });

  it("thresholds 'paper' cuts chunks at MDER-DR's 0.75; the default cuts at the document's own percentile", async () => {
    const text = CORPUS_FILES.flatMap((f) => corpusParagraphs(f).map((p) => p.text)).join('\n\n');
    let copies = 0;
    const chunkCount = async (options: Partial<IngestPendingOptions>): Promise<number> => {
      const doc = addFile(`odyssey-${++copies}.txt`, text, 'text/plain');
      await ingestPending(kb, { embedder, ...options });
      return kb.documents.getDocument(doc.id)!.chunkCount;
    };
    const paper = await chunkCount({ thresholds: 'paper' });
    expect(paper).toBe(await chunkCount({ chunking: { threshold: 0.75 } }));
    expect(await chunkCount({})).not.toBe(paper);
  });
});

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentPageText, DocumentSource } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { polyhopInProcess } from '../../support/cliInProcess.js';
import { CORPUS_DIR, CORPUS_FILES } from '../../support/corpusScript.js';
import { writeIthacaPdf } from '../../support/ithacaPdf.js';
import { call, runJobToEnd, tempEngine } from '../../support/tempEngine.js';
import { QaEmbedder, WIFE_OF_KING } from '../qa/support/qaScript.js';
import { corpusLlm } from '../security/support/fullRun.js';

/** `polyhop source DOCUMENT START-END`: a passage `polyhop ask` cites, shown on its page (Api `docs:page`). */
let engine: Engine;
let dataDir: string;
let dispose: () => Promise<void>;
const ithaca = writeIthacaPdf('polyhop-source-');
const pdfPath = ithaca.path;
const PDF_PAGES = ithaca.pages;
let pdfId: number;
const polyhop = (...args: string[]) => polyhopInProcess(dataDir, args, { engine });
const pageOf = (id: number, startOffset: number, endOffset: number) =>
  call<DocumentPageText>(engine, 'docs:page', { kb: 'odyssey', id, startOffset, endOffset });
/** What the command marked between » «. */
const marked = (out: string) => /»([\s\S]*)«/.exec(out)?.[1];

beforeAll(async () => {
  ({ engine, dataDir, dispose } = await tempEngine({ llm: corpusLlm(), embedder: new QaEmbedder() }));
  await call(engine, 'kb:create', { name: 'odyssey' });
  await call(engine, 'docs:add', { kb: 'odyssey', paths: [...CORPUS_FILES.map((f) => join(CORPUS_DIR, f)), pdfPath] });
  expect((await runJobToEnd(engine, 'index:start', { kb: 'odyssey' })).status).toBe('done');
  const { rows } = await call<{ rows: { id: number; path: string }[] }>(engine, 'docs:list', { kb: 'odyssey' });
  pdfId = rows.find((r) => r.path === pdfPath)!.id;
});
afterAll(async () => {
  await dispose();
  ithaca.remove();
});

describe('polyhop source', () => {
  it('shows each source `ask` prints on its page, the cited passage marked', async () => {
    const asked = await polyhop('ask', WIFE_OF_KING.en, '--kb', 'odyssey', '--strategy', 'vector');
    expect(asked).toMatchObject({ code: 0, err: '' });
    const cited = [...asked.out.matchAll(/\[document (\d+), (\d+)-(\d+)\]/g)].map((m) => m.slice(1).map(Number));
    expect(cited.length).toBeGreaterThan(0);
    for (const [id, start, end] of cited as [number, number, number][]) {
      const shown = await polyhop('source', String(id), `${start}-${end}`, '--kb', 'odyssey');
      expect(shown).toMatchObject({ code: 0, err: '' });
      const page = await pageOf(id, start, end);
      expect(shown.out).toContain(`${page.document.title} (document ${id}), `);
      expect(marked(shown.out)).toBe(page.text.slice(page.passage.start, page.passage.end));
      expect(marked(shown.out)!.length).toBeGreaterThan(0);
    }
  });

  it('shows a PDF passage on its own page, underlined on a terminal, and the Api reply under --json', async () => {
    const { text } = await call<DocumentSource>(engine, 'docs:source', { kb: 'odyssey', id: pdfId });
    const passage = 'She wove a shroud by day';
    const start = text.indexOf(passage);
    const span = `${start}-${start + passage.length}`;
    const shown = await polyhop('source', String(pdfId), span, '--kb', 'odyssey');
    expect(shown).toMatchObject({ code: 0, err: '' });
    expect(shown.out).toContain(`page 2: passage ${span}\n`);
    expect(shown.out).toContain(`Penelope waited twenty years for Odysseus.\n»${passage}« and undid it by night.`);
    expect(shown.out).not.toContain(PDF_PAGES[0]);

    const tty = Object.getOwnPropertyDescriptor(process.stdout, 'isTTY');
    Object.defineProperty(process.stdout, 'isTTY', { value: true, configurable: true });
    try {
      const onTerminal = await polyhop('source', String(pdfId), span, '--kb', 'odyssey');
      expect(onTerminal.out).toContain(`\n\x1b[4m${passage}\x1b[24m and undid it`);
    } finally {
      if (tty) Object.defineProperty(process.stdout, 'isTTY', tty);
      else delete (process.stdout as { isTTY?: boolean }).isTTY;
    }

    const json = await polyhop('--json', 'source', String(pdfId), span, '--kb', 'odyssey');
    expect(JSON.parse(json.out)).toEqual(await pageOf(pdfId, start, start + passage.length));
  });

  it('names the document and passage it cannot show, and exits 1', async () => {
    const missing = await polyhop('source', '9999', '0-10', '--kb', 'odyssey');
    expect(missing).toMatchObject({ code: 1, out: '' });
    expect(missing.err).toMatch(/Passage 0-10 of document 9999 in "odyssey": NOT_FOUND: No document 9999/);
    const past = await polyhop('source', String(pdfId), '100000-100010', '--kb', 'odyssey');
    expect(past.code).toBe(1);
    expect(past.err).toMatch(new RegExp(`Passage 100000-100010 of document ${pdfId} \\(".+"\\) is not in its text`));
    const inverted = await polyhop('source', String(pdfId), '10-2', '--kb', 'odyssey');
    expect(inverted.code).toBe(1);
    expect(inverted.err).toMatch(/Passage 10-2 of document \d+ in "odyssey": INVALID_REQUEST/);
    const notASpan = await polyhop('source', String(pdfId), 'p.2', '--kb', 'odyssey');
    expect(notASpan.code).toBe(1);
    expect(notASpan.err).toMatch(/"p\.2" is not a passage/);
  });
});

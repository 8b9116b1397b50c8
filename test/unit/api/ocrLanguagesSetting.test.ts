import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { printDoctor } from '../../../src-main/cli/format.js';
import type { DoctorReport, Settings } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { documentLimitOptions } from '../../../src-main/engine/api/handlers/indexing.js';
import { ingestPending } from '../../../src-main/engine/mder/ingestPending.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';
import { scanOf } from '../../support/scanWriter.js';
import { call, tempEngine } from '../../support/tempEngine.js';

describe('the ocrLanguages setting', () => {
  let engine: Engine;
  let dispose: () => Promise<void>;
  const embedder = new NgramEmbedder(32);
  const folder = mkdtempSync(join(tmpdir(), 'polyhop-ocrsetting-'));

  beforeAll(async () => {
    ({ engine, dispose } = await tempEngine({ embedder }));
    await call(engine, 'kb:create', { name: 'scans' });
  });
  afterAll(async () => {
    await dispose();
    rmSync(folder, { recursive: true, force: true });
  });

  it('offers the installed languages, refuses one that is not installed, and defaults to all of them', async () => {
    const doctor = await call<DoctorReport>(engine, 'system:doctor', {});
    expect(doctor.ocrLanguages).toEqual([
      { code: 'chi_sim', tag: 'zh-Hans' },
      { code: 'deu', tag: 'de' },
      { code: 'eng', tag: 'en' },
      { code: 'fra', tag: 'fr' },
      { code: 'ita', tag: 'it' },
      { code: 'spa', tag: 'es' },
    ]);
    expect((await call<Settings>(engine, 'system:getSettings', {})).ocrLanguages).toBeNull();
    const refused = await engine.call('system:setSettings', { settings: { ocrLanguages: ['eng', 'kli'] } });
    expect(refused).toMatchObject({
      ok: false,
      error: {
        code: 'INVALID_REQUEST',
        message: expect.stringContaining('ocrLanguages: not installed: kli') as string,
      },
    });
    const empty = await engine.call('system:setSettings', { settings: { ocrLanguages: [] } });
    expect(empty.ok).toBe(false);
  });

  it('polyhop doctor prints the installed languages and those scans are read in', async () => {
    const doctor = await call<DoctorReport>(engine, 'system:doctor', {});
    const printed = (chosen: string[] | null) => {
      const lines: string[] = [];
      const log = vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
      try {
        printDoctor(doctor, chosen);
      } finally {
        log.mockRestore();
      }
      return lines.find((l) => l.includes('OCR languages'));
    };
    expect(printed(null)).toBe(
      '\nOCR languages: installed chi_sim (zh-Hans), deu (de), eng (en), fra (fr), ita (it), spa (es); scans are read in all of them (setting ocrLanguages)',
    );
    expect(printed(['eng', 'ita'])).toMatch(/; scans are read in eng, ita \(setting ocrLanguages\)$/);
  });

  it('the document worker recognises the saved languages only', async () => {
    const saved = await call<Settings>(engine, 'system:setSettings', { settings: { ocrLanguages: ['eng'] } });
    expect(saved.ocrLanguages).toEqual(['eng']);
    const scan = join(folder, 'letter.png');
    writeFileSync(scan, scanOf(['The harbour master counted twelve ships', 'before the storm reached the coast.']).png);
    await call(engine, 'docs:add', { kb: 'scans', paths: [scan] });
    const { documentLimits, ocrLanguages } = engine.settings.get();
    const kb = engine.kbs.get('scans').kb;
    await ingestPending(kb, { embedder, ...documentLimitOptions(documentLimits, ocrLanguages) });
    const doc = kb.documents.findDocumentByPath(scan)!;
    expect(doc.error).toMatch(/^ingest: page 1 read by OCR \(mean confidence \d+%; eng\)$/);
  });
});

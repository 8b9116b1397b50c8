import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import type { Engine } from '../../src-main/engine/api/Engine.js';
import type { KnowledgeBase } from '../../src-main/engine/kb/KnowledgeBase.js';
import { chunks } from '../unit/kb/kbFixtures.js';
import { downgradeToV14 } from '../unit/kb/vectorCentreFixtures.js';
import { writePdf } from './pdfWriter.js';
import { call, engineAt, tempEngine } from './tempEngine.js';

export interface OldKbEngineOptions {
  /** The KBs to make, each filled by `fill` on a first engine. */
  names: readonly string[];
  fill: (kb: KnowledgeBase, dataDir: string) => void;
  /** Vector families whose codes go back to plain signs (`downgradeToV14`). Default: none. */
  families?: readonly string[];
}

/**
 * An engine over a data folder whose KBs an older Polyhop made (schema v14: no centred codes, no
 * kept pages), for the upgrade job's tests. The KBs are made and filled on a first engine, which
 * is disposed before their files are taken back to v14; the engine returned opens none of them yet
 * and sends every progress event (tests act on one).
 */
export async function oldKbEngine({ names, fill, families = [] }: OldKbEngineOptions): Promise<{
  engine: Engine;
  dataDir: string;
  files: Record<string, string>;
  dispose: () => Promise<void>;
}> {
  const made = await tempEngine();
  const { dataDir } = made;
  const files: Record<string, string> = {};
  for (const name of names) {
    await call(made.engine, 'kb:create', { name });
    fill(made.engine.kbs.get(name).kb, dataDir);
    files[name] = made.engine.kbs.registry.get(name).file;
  }
  await made.engine.dispose();
  for (const file of Object.values(files)) downgradeToV14(file, families);
  const engine = await engineAt(dataDir, undefined, { progressIntervalMs: 0 });
  return {
    engine,
    dataDir,
    files,
    dispose: async () => {
      await engine.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The pages of {@link addIthacaPdf}'s document. */
export const ITHACA_PAGES = ['Page one is about Ithaca.', 'Page two is about Penelope.'] as const;

/** A `fill` for {@link oldKbEngine}: writes a two-page PDF at `path` and adds it, one chunk a page, to `kb`. */
export function addIthacaPdf(kb: KnowledgeBase, path: string): void {
  addPdf(kb, { path, title: 'ithaca', bytes: writePdf({ pages: [...ITHACA_PAGES] }), chunks: ITHACA_PAGES });
}

/** For a `fill`: writes the PDF `bytes` at `path` and adds the document to `kb` with those chunks; returns its id. */
export function addPdf(
  kb: KnowledgeBase,
  pdf: { path: string; title: string; bytes: Uint8Array; chunks: readonly string[] },
): number {
  writeFileSync(pdf.path, pdf.bytes);
  const hash = createHash('sha256').update(pdf.bytes).digest('hex');
  const doc = kb.documents.addDocument({
    path: pdf.path,
    title: pdf.title,
    hash,
    mime: 'application/pdf',
    size: pdf.bytes.length,
  });
  kb.documents.replaceChunks(doc.id, chunks(...pdf.chunks));
  return doc.id;
}

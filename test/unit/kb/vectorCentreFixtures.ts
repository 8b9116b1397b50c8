import Database from 'better-sqlite3';
import type { KnowledgeBase } from '../../../src-main/engine/kb/KnowledgeBase.js';
import type { VectorKind } from '../../../src-main/engine/kb/types.js';
import { BinaryIndex } from '../../../src-main/engine/kb/utils/BinaryIndex.js';
import { VECTOR_KINDS } from '../../../src-main/engine/kb/VectorIndexRepository.js';

/** The stored centre of `kind` and whether every live code is sign(v − centre), read on a connection of its own. */
export function storedCodes(
  file: string,
  kind: string,
): { centre: Float32Array | null; centredAt: number; consistent: boolean; count: number } {
  const db = new Database(file, { readonly: true });
  try {
    const state = db
      .prepare('SELECT centre, centred_at AS centredAt, code_column AS live FROM vector_state WHERE kind = ?')
      .get(kind) as { centre: Buffer | null; centredAt: number; live: string };
    const floats = (b: Buffer): Float32Array =>
      new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
    const centre = state.centre ? floats(state.centre) : null;
    const rows = db
      .prepare(`SELECT v.vector, c.${state.live} AS code FROM vec_${kind} v JOIN vcode_${kind} c USING (id)`)
      .all() as {
      vector: Buffer;
      code: Buffer;
    }[];
    const consistent = rows.every(({ vector, code }) =>
      Buffer.from(BinaryIndex.encode(floats(vector), centre).buffer).equals(code),
    );
    return { centre, centredAt: state.centredAt, consistent, count: rows.length };
  } finally {
    db.close();
  }
}

/** Recentres `kind` a batch at a time, as the upgrade job does, until the new centre is live; how many batches it took. */
export function recentreInSteps(kb: KnowledgeBase, kind: VectorKind, rows?: number): number {
  let steps = 1;
  while (!kb.vectors.recentreStep(kind, rows).finished)
    if (++steps > 100) throw new Error(`${kind}'s recentre does not end`);
  return steps;
}

/**
 * Takes `file` back to schema v14, as an older Polyhop wrote it: plain sign-bit codes in `code`, no
 * centre nor staging columns, no later tables.
 */
export function downgradeToV14(file: string, kinds: readonly string[]): void {
  const raw = new Database(file);
  for (const kind of kinds) plainSignCodes(raw, kind);
  raw.exec(
    `DROP TABLE IF EXISTS document_ocr_pages;
     DROP TABLE IF EXISTS document_ocr;
     DROP TABLE IF EXISTS document_pages;
     ${['centre', 'centred_at', 'code_column', 'staged_sum', 'staged_centre', 'staged_count', 'staged_after'].map((c) => `ALTER TABLE vector_state DROP COLUMN ${c};`).join('\n')}
     ${VECTOR_KINDS.map((k) => `ALTER TABLE vcode_${k} DROP COLUMN code_alt;`).join('\n')}`,
  );
  raw.pragma('user_version = 14');
  raw.close();
}

/** Rewrites `kind`'s live codes as plain sign bits, as Polyhop wrote them before centring (schema v14). */
export function plainSignCodes(db: Database.Database, kind: string): void {
  const live = db.prepare('SELECT code_column FROM vector_state WHERE kind = ?').pluck().get(kind) as string;
  const put = db.prepare(`UPDATE vcode_${kind} SET ${live} = ? WHERE id = ?`);
  for (const { id, vector } of db.prepare(`SELECT id, vector FROM vec_${kind}`).all() as {
    id: number;
    vector: Buffer;
  }[]) {
    const floats = new Float32Array(vector.buffer.slice(vector.byteOffset, vector.byteOffset + vector.byteLength));
    put.run(Buffer.from(BinaryIndex.encode(floats).buffer), id);
  }
}

import { open } from 'node:fs/promises';
import { hashParts, sha256Hex } from '../../base/hash.js';

const HEAD_BYTES = 1 << 20;

/**
 * Cheap identity of a model file: its size and a hash of its first MiB. Hashing multi-GB weights
 * at every start would take seconds; the head holds the format header and metadata, which differ
 * between models and quantisations, and the size catches most other changes.
 */
export async function fileFingerprint(path: string): Promise<string> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const head = Buffer.alloc(Math.min(size, HEAD_BYTES));
    await file.read(head, 0, head.length, 0);
    return hashParts([String(size), sha256Hex(head)]);
  } finally {
    await file.close();
  }
}

import { createHash } from 'node:crypto';

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Hash of several parts that cannot collide by concatenation ("ab"+"c" vs "a"+"bc"). */
export function hashParts(parts: readonly string[]): string {
  const h = createHash('sha256');
  for (const part of parts) {
    h.update(String(Buffer.byteLength(part)));
    h.update(':');
    h.update(part);
  }
  return h.digest('hex');
}

import { readFileSync } from 'node:fs';
import { hashParts, sha256Hex } from '../base/hash.js';
import type { EvalKbSource } from './types.js';

/** Hash of what the KB is built from: passages by id and text, or the graph file's bytes. */
export function sourceFingerprint(source: EvalKbSource): string {
  if (source.kind === 'rdf') return hashParts(['rdf', source.format, sha256Hex(readFileSync(source.path))]);
  return hashParts(['passages', source.language, ...source.passages.flatMap((p) => [p.id, p.title, p.text])]);
}

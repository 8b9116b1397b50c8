import { PolyhopError } from '../../base/errors.js';

export interface GuardXmlEntitiesOptions {
  file: string;
  /** Most characters all entity references may expand to, in all. */
  maxExpansion: number;
}

const PREDEFINED = new Set(['lt', 'gt', 'amp', 'quot', 'apos']);

/**
 * Passes XML bytes through unchanged, refusing (BAD_INPUT) documents whose internal entities would
 * expand past `maxExpansion` characters. Oxigraph's RDF/XML parser expands nested entities
 * (measured: a 9-level "billion laughs" of 1 kB became a 430 MB literal in 2.5 s; one more level
 * exhausts memory), so the check runs on each chunk before the parser sees it. External and
 * parameter entities are refused outright.
 */
export async function* guardXmlEntities(
  input: AsyncIterable<Buffer>,
  options: GuardXmlEntitiesOptions,
): AsyncGenerator<Buffer> {
  const decoder = new TextDecoder();
  let sizes: Map<string, number> | null = null;
  let head = '';
  let carry = '';
  let total = 0;
  const pending: Buffer[] = [];
  for await (const chunk of input) {
    let text = decoder.decode(chunk, { stream: true });
    if (sizes === null) {
      head += text;
      const doctypeEnd = endOfDoctype(head);
      if (doctypeEnd === null && head.length < 4 << 20) {
        // Hold bytes back until the DOCTYPE is complete; the parser must not see refs before the check.
        pending.push(chunk);
        continue;
      }
      sizes = entitySizes(head.slice(0, doctypeEnd ?? 0), options.file);
      text = head.slice(doctypeEnd ?? 0);
      head = '';
    }
    const scan = carry + text;
    for (const m of scan.matchAll(/&([A-Za-z_:][\w.:-]*);/g)) {
      total += sizes.get(m[1] as string) ?? 0;
    }
    // Keep an unfinished reference for the next chunk.
    const amp = scan.lastIndexOf('&');
    carry = amp >= 0 && !scan.slice(amp).includes(';') && scan.length - amp < 256 ? scan.slice(amp) : '';
    if (total > options.maxExpansion) throw tooBig(options.file, options.maxExpansion);
    for (const held of pending.splice(0)) yield held;
    yield chunk;
  }
  for (const held of pending.splice(0)) yield held;

  function tooBig(file: string, max: number): PolyhopError {
    return new PolyhopError(
      'BAD_INPUT',
      `rdf import: ${file}: XML entity references expand past ${max} characters (entity expansion attack?)`,
      {
        details: { file, maxExpansion: max },
      },
    );
  }
}

/** Index just past the DOCTYPE's internal subset ("]>"), 0 when the document has none, null when not yet known. */
function endOfDoctype(head: string): number | null {
  const doctype = head.indexOf('<!DOCTYPE');
  const firstElement = head.search(/<[A-Za-z_]/);
  if (doctype < 0) return firstElement >= 0 ? 0 : null;
  const end = head.indexOf(']>', doctype);
  if (end >= 0) return end + 2;
  const plainEnd = /^<!DOCTYPE[^[>]*>/.exec(head.slice(doctype));
  return plainEnd ? doctype + plainEnd[0].length : null;
}

/** Expanded length of each internal general entity; refuses external, parameter and cyclic ones. */
function entitySizes(doctype: string, file: string): Map<string, number> {
  const values = new Map<string, string>();
  for (const m of doctype.matchAll(/<!ENTITY\s+(%\s+)?([^\s]+)\s+("([^"]*)"|'([^']*)'|[^>]*)>/g)) {
    const value = m[4] ?? m[5];
    if (m[1] || value === undefined) {
      throw new PolyhopError(
        'BAD_INPUT',
        `rdf import: ${file}: external or parameter XML entity "${m[2]}" is not allowed`,
        { details: { file, entity: m[2] } },
      );
    }
    values.set(m[2] as string, value);
  }
  const sizes = new Map<string, number>();
  const sizeOf = (name: string, path: Set<string>): number => {
    const known = sizes.get(name);
    if (known !== undefined) return known;
    const value = values.get(name);
    if (value === undefined) return PREDEFINED.has(name) ? 1 : 0;
    if (path.has(name))
      throw new PolyhopError('BAD_INPUT', `rdf import: ${file}: XML entity "${name}" refers to itself`, {
        details: { file, entity: name },
      });
    path.add(name);
    let size = value.replace(/&[A-Za-z_:][\w.:-]*;/g, '').length;
    for (const ref of value.matchAll(/&([A-Za-z_:][\w.:-]*);/g)) size += sizeOf(ref[1] as string, path);
    path.delete(name);
    sizes.set(name, size);
    return size;
  };
  for (const name of values.keys()) sizeOf(name, new Set());
  return sizes;
}

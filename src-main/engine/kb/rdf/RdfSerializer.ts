import { PolyhopError } from '../../base/errors.js';
import type { AnyTerm, RdfQuad } from './terms.js';
import { RDF_LANG_STRING, RDF_TYPE, XSD_STRING } from './vocabulary.js';

/** Formats the streaming writer produces (RDF/XML is import-only). */
export type RdfWriteFormat = 'turtle' | 'ntriples' | 'nquads';

/**
 * Turns quads into text, batch by batch, so an export never holds more than one batch of text.
 * Turtle groups consecutive quads of one subject with `;` and `,`; graphs are dropped for Turtle and
 * N-Triples. Usage: `header()`, then `write(batch)` for each batch, then `end()`.
 */
export class RdfSerializer {
  readonly format: RdfWriteFormat;
  readonly #prefixes: [string, string][];
  readonly #prefixByNamespace: Map<string, string>;
  /** Turtle form of recent IRIs: entity and predicate IRIs repeat on almost every line. */
  readonly #iriCache = new Map<string, string>();
  #subject: string | null = null;
  #predicate: string | null = null;

  constructor(format: RdfWriteFormat, prefixes: Readonly<Record<string, string>> = {}) {
    this.format = format;
    // Longest namespace first, so `entity:` wins over a shorter prefix of the same base.
    this.#prefixes = Object.entries(prefixes);
    this.#prefixByNamespace = new Map(this.#prefixes.map(([p, ns]) => [ns, p]));
  }

  header(): string {
    if (this.format !== 'turtle') return '';
    return this.#prefixes.map(([p, ns]) => `@prefix ${p}: <${escapeIri(ns)}> .\n`).join('') + '\n';
  }

  write(quads: Iterable<RdfQuad>): string {
    let out = '';
    for (const q of quads) {
      if (this.format !== 'turtle') {
        out += `${ntTerm(q.subject)} ${ntTerm(q.predicate)} ${ntTerm(q.object)}`;
        if (this.format === 'nquads' && q.graph.termType !== 'DefaultGraph') out += ` ${ntTerm(q.graph)}`;
        out += ' .\n';
        continue;
      }
      const s = this.#turtleTerm(q.subject);
      const p =
        q.predicate.termType === 'NamedNode' && q.predicate.value === RDF_TYPE ? 'a' : this.#turtleTerm(q.predicate);
      const o = this.#turtleTerm(q.object);
      if (s === this.#subject && p === this.#predicate) out += `, ${o}`;
      else if (s === this.#subject) out += ` ;\n    ${p} ${o}`;
      else out += `${this.#subject === null ? '' : ' .\n'}${s} ${p} ${o}`;
      this.#subject = s;
      this.#predicate = p;
    }
    return out;
  }

  end(): string {
    const out = this.format === 'turtle' && this.#subject !== null ? ' .\n' : '';
    this.#subject = null;
    this.#predicate = null;
    return out;
  }

  #turtleTerm(term: AnyTerm): string {
    if (term.termType === 'NamedNode') {
      let text = this.#iriCache.get(term.value);
      if (text === undefined) {
        // Namespaces end in '/' or '#', and minted local names contain neither (they are escaped).
        const cut = Math.max(term.value.lastIndexOf('/'), term.value.lastIndexOf('#')) + 1;
        const prefix = this.#prefixByNamespace.get(term.value.slice(0, cut));
        const local = term.value.slice(cut);
        text = prefix !== undefined && PN_LOCAL.test(local) ? `${prefix}:${local}` : ntTerm(term);
        if (this.#iriCache.size >= 100_000) this.#iriCache.clear();
        this.#iriCache.set(term.value, text);
      }
      return text;
    }
    if (term.termType === 'Literal') {
      const datatype = term.datatype?.value ?? XSD_STRING;
      if (datatype !== XSD_STRING && datatype !== RDF_LANG_STRING) {
        return `"${escapeString(term.value)}"^^${this.#turtleTerm({ termType: 'NamedNode', value: datatype })}`;
      }
    }
    return ntTerm(term);
  }
}

/** N-Triples form of a term (also valid Turtle). */
export function ntTerm(term: AnyTerm): string {
  switch (term.termType) {
    case 'NamedNode':
      return `<${escapeIri(term.value)}>`;
    case 'BlankNode':
      return `_:${blankLabel(term.value)}`;
    case 'Literal': {
      const body = `"${escapeString(term.value)}"`;
      if (term.language) return `${body}@${term.language}`;
      const datatype = term.datatype?.value ?? XSD_STRING;
      return datatype === XSD_STRING ? body : `${body}^^<${escapeIri(datatype)}>`;
    }
    default:
      throw new PolyhopError(
        'UNSUPPORTED',
        `RdfSerializer: cannot write a ${term.termType} term (RDF 1.2 triple terms are not supported)`,
        {
          details: { termType: term.termType },
        },
      );
  }
}

function escapeString(value: string): string {
  return value
    .replace(/\p{Cs}/gu, '\ufffd') // a lone surrogate has no UTF-8 form
    .replace(
      /[\\"\u0000-\u001f\u007f]/g,
      (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`,
    );
}
const ESCAPES: Record<string, string> = { '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** IRIs come validated (minted or parsed); this only guards the characters IRIREF forbids. */
function escapeIri(value: string): string {
  return value.replace(
    /[\u0000-\u0020<>"{}|^`\\]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`,
  );
}

/**
 * Blank node labels from parsers are usually safe and pass through; anything else is hex-encoded
 * deterministically. One-to-one: a label passes through only when it does not start with "x", the
 * prefix of every hex form, so "x4121" and "A!" (hex 4121) stay two blank nodes.
 */
function blankLabel(label: string): string {
  if (/^[A-Za-wyz0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?$/.test(label)) return label;
  return `x${Buffer.from(label, 'utf8').toString('hex')}`;
}

// Turtle's PN_LOCAL, restricted to what minted IRIs use (no backslash escapes).
const BASE =
  'A-Za-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C\\u200D\\u2070-\\u218F' +
  '\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const CHARS = `${BASE}_\\-0-9\\u00B7\\u0300-\\u036F\\u203F\\u2040`;
const PLX = '%[0-9A-Fa-f]{2}';
// The grammar's ranges include combining marks and ZWNJ/ZWJ on purpose.
// eslint-disable-next-line no-misleading-character-class
const PN_LOCAL = new RegExp(`^(?:[${BASE}_:0-9]|${PLX})(?:(?:[${CHARS}.:]|${PLX})*(?:[${CHARS}:]|${PLX}))?$`, 'u');

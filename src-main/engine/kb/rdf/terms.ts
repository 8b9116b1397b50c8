import { assertBaseIri, mintIri } from '../../base/iri.js';
import { RDF_LANG_STRING, XSD_INTEGER, XSD_STRING } from './vocabulary.js';

/**
 * Plain RDF terms with the RDF/JS shape, so Oxigraph's own terms (from `parse`) fit the same
 * serializer. Polyhop builds terms only through {@link iri}, {@link literal} and {@link KbIris}.
 */
export interface NamedTerm {
  readonly termType: 'NamedNode';
  readonly value: string;
}
export interface BlankTerm {
  readonly termType: 'BlankNode';
  readonly value: string;
}
export interface LiteralTerm {
  readonly termType: 'Literal';
  readonly value: string;
  readonly language: string;
  readonly datatype: { readonly value: string };
}
export interface DefaultGraphTerm {
  readonly termType: 'DefaultGraph';
  readonly value: '';
}
/** Anything RDF/JS-shaped; terms other than the four above (RDF 1.2 triple terms, variables) are refused by the writer. */
export interface AnyTerm {
  readonly termType: string;
  readonly value: string;
  readonly language?: string;
  readonly datatype?: { readonly value: string };
}
export type RdfTerm = NamedTerm | BlankTerm | LiteralTerm;
export interface RdfQuad {
  readonly subject: AnyTerm;
  readonly predicate: AnyTerm;
  readonly object: AnyTerm;
  readonly graph: AnyTerm;
}

const DEFAULT_GRAPH: DefaultGraphTerm = { termType: 'DefaultGraph', value: '' };

/** A named node; `value` must already be a valid IRI (minted by base/iri.ts or parsed by Oxigraph). */
export function iri(value: string): NamedTerm {
  return { termType: 'NamedNode', value };
}

/** A literal: xsd:string by default, a language-tagged string with `{ language }`, or a typed one. */
export function literal(value: string, type: { language?: string; datatype?: string } = {}): LiteralTerm {
  const datatype = type.language ? RDF_LANG_STRING : (type.datatype ?? XSD_STRING);
  return { termType: 'Literal', value, language: type.language ?? '', datatype: { value: datatype } };
}

export function integer(value: number): LiteralTerm {
  return literal(String(Math.trunc(value)), { datatype: XSD_INTEGER });
}

export function quad(
  subject: NamedTerm | BlankTerm,
  predicate: NamedTerm | string,
  object: RdfTerm,
  graph: NamedTerm | DefaultGraphTerm = DEFAULT_GRAPH,
): RdfQuad {
  return {
    subject,
    predicate: typeof predicate === 'string' ? iri(predicate) : predicate,
    object,
    graph,
  };
}

/**
 * The IRIs of one knowledge base's nodes, all minted by {@link mintIri} under its base IRI.
 * Documents and chunks are named by record id; entities, relationships and triples by name, as
 * in MDER (a triple by source + relationship + target), so the same statement keeps its IRI.
 */
export class KbIris {
  readonly base: string;
  /** Entity and relation IRIs by name: each is minted for every triple that mentions it. */
  readonly #cache = new Map<string, NamedTerm>();
  constructor(base: string) {
    assertBaseIri(base);
    this.base = base;
  }
  document(id: number): NamedTerm {
    return iri(mintIri(this.base, ['document', String(id)]));
  }
  chunk(id: number): NamedTerm {
    return iri(mintIri(this.base, ['chunk', String(id)]));
  }
  entity(name: string): NamedTerm {
    return this.#cached('entity', name);
  }
  relation(label: string): NamedTerm {
    return this.#cached('relation', label);
  }
  triple(source: string, relation: string, target: string): NamedTerm {
    return iri(mintIri(this.base, ['triple', source, relation, target]));
  }
  /** An answer (history entry) and its named graph; `parts` name the nodes inside it (`question`, `step/1`…). */
  answer(historyId: number, ...parts: (string | number)[]): NamedTerm {
    return iri(mintIri(this.base, ['answer', String(historyId), ...parts.map(String)]));
  }
  thread(id: number): NamedTerm {
    return iri(mintIri(this.base, ['thread', String(id)]));
  }
  /** A model by its identity (backend, file and every setting that changes its output). */
  model(identity: string): NamedTerm {
    return iri(mintIri(this.base, ['model', identity]));
  }
  #cached(family: 'entity' | 'relation', name: string): NamedTerm {
    const key = `${family}\u0000${name}`;
    let term = this.#cache.get(key);
    if (!term) {
      term = iri(mintIri(this.base, [family, name]));
      if (this.#cache.size >= 100_000) this.#cache.clear();
      this.#cache.set(key, term);
    }
    return term;
  }
  /** Turtle prefixes for the KB's node families (`entity:`, `relation:`…). */
  prefixes(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const family of ['document', 'chunk', 'entity', 'relation', 'triple', 'answer', 'thread', 'model'])
      out[family] = `${this.base}${family}/`;
    return out;
  }
}

interface WasmTerm {
  readonly termType: string;
  readonly value: string;
  readonly language?: string;
  readonly datatype?: WasmTerm;
  free?(): void;
}
interface WasmQuad {
  readonly subject: WasmTerm;
  readonly predicate: WasmTerm;
  readonly object: WasmTerm;
  readonly graph: WasmTerm;
  free?(): void;
}

/**
 * Copies an Oxigraph quad into plain terms and frees the wasm objects. Every property read on an
 * Oxigraph term crosses into wasm and allocates; reading once and freeing measured ~5x faster than
 * working on the wasm terms directly when importing large files.
 */
export function fromOxigraph(q: WasmQuad): RdfQuad {
  const out = {
    subject: plainTerm(q.subject),
    predicate: plainTerm(q.predicate),
    object: plainTerm(q.object),
    graph: plainTerm(q.graph),
  };
  q.free?.();
  return out;
}

function plainTerm(term: WasmTerm): AnyTerm {
  const termType = term.termType;
  let out: AnyTerm;
  if (termType === 'Literal') {
    const datatype = term.datatype as WasmTerm;
    out = { termType, value: term.value, language: term.language ?? '', datatype: { value: datatype.value } };
    datatype.free?.();
  } else {
    out = { termType, value: termType === 'DefaultGraph' ? '' : term.value };
  }
  term.free?.();
  return out;
}

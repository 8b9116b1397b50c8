import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'oxigraph';
import { throwIfAborted } from '../../base/abort.js';
import { PolyhopError } from '../../base/errors.js';
import { entityKey } from '../entityKey.js';
import { verbaliseTriple } from '../verbaliseTriple.js';
import { MEDIA_TYPES, type RdfFormat, formatOfFile } from './rdfFormats.js';
import { type AnyTerm, type RdfQuad, fromOxigraph } from './terms.js';
import { ntTerm } from './RdfSerializer.js';
import { RDF_TYPE, RDFS_LABEL } from './vocabulary.js';
import { guardXmlEntities } from './guardXmlEntities.js';

const SKOS = 'http://www.w3.org/2004/02/skos/core#';
/** Statements that name their subject rather than relate it: they become entity names and aliases. */
const LABEL_PREDICATES = new Set([RDFS_LABEL, `${SKOS}prefLabel`, `${SKOS}altLabel`]);

/** A node of the imported graph, as an entity for the KB. */
export interface ImportedEntity {
  /** The node's N-Triples form (`<iri>`, `_:b`, or a literal): unique within one import. */
  key: string;
  /** rdfs:label / skos:prefLabel, else the IRI's local name, else the literal's value; unique (by entityKey) within one import. */
  name: string;
  /** Label (or local name) of its first rdf:type; 'Resource' when untyped; 'Literal' for literal values. */
  type: string;
  kind: 'resource' | 'literal';
  /** Further labels. */
  aliases: string[];
}

/** One statement that is not a label, verbalised for the triple index (embeddings, BM25). */
export interface ImportedTriple {
  sourceKey: string;
  /** The predicate's label or its humanised local name ("hasAffiliation" → "has affiliation"). */
  relation: string;
  targetKey: string;
  /** "subject label relation object label", by verbaliseTriple. */
  text: string;
}

export interface ImportBatch {
  /** Entities first seen in this batch; every key a triple of the batch uses was sent in this or an earlier batch. */
  entities: ImportedEntity[];
  triples: ImportedTriple[];
  /** The batch's original statements, verbatim, as N-Quads (to keep for export and the RDF view). */
  nquads: string;
}

export interface ImportProgress {
  phase: 'validate' | 'convert';
  quads: number;
  bytes: number;
  totalBytes: number;
}

export interface ImportRdfOptions {
  /** Default: from the file's extension. */
  format?: RdfFormat;
  /** Base for relative IRIs. Default: the file's URL. */
  baseIri?: string;
  /** Receives the records batch by batch, after the whole file has been validated. */
  onBatch: (batch: ImportBatch) => void | Promise<void>;
  onProgress?: (progress: ImportProgress) => void;
  signal?: AbortSignal;
  /** Statements per batch. Default: 5000. */
  batchSize?: number;
  /** RDF/XML: most characters that internal entities may expand to, in all. Default: 64 MiB. */
  maxEntityExpansion?: number;
}

export interface ImportRdfResult {
  quads: number;
  /** Statements that became names or aliases (LABEL_PREDICATES with a literal object). */
  labels: number;
  triples: number;
  entities: number;
}

/**
 * Reads an RDF file into KB records in two streaming passes, so memory holds one batch plus a
 * name per node, never the file. Pass 1 parses everything (any syntax error is BAD_INPUT with the
 * parser's line and column, before anything was handed out) and collects labels and types; pass 2
 * hands out entities, verbalised triples and the original statements in batches. The caller stores
 * all batches in one transaction; imports are all or nothing.
 */
export async function importRdf(file: string, options: ImportRdfOptions): Promise<ImportRdfResult> {
  const format = options.format ?? formatOfFile(file);
  const totalBytes = await stat(file).then(
    (s) => s.size,
    (error: unknown) => {
      throw new PolyhopError('NOT_FOUND', `rdf import: cannot read ${file}: ${(error as Error).message}`, { details: { file }, cause: error });
    },
  );
  const ctx: Ctx = { file, format, options, totalBytes, baseIri: options.baseIri ?? pathToFileURL(file).href };

  // Pass 1: validate; remember labels and first types.
  const labels = new Map<string, string[]>();
  const types = new Map<string, string>();
  let quads = 0;
  for await (const q of quadsOf(ctx, 'validate')) {
    quads++;
    const s = ntTerm(q.subject);
    if (isLabel(q)) {
      const list = labels.get(s);
      if (list) list.push(q.object.value);
      else labels.set(s, [q.object.value]);
    } else if (q.predicate.value === RDF_TYPE && q.object.termType !== 'Literal' && !types.has(s)) {
      types.set(s, ntTerm(q.object));
    }
  }

  // Pass 2: records.
  const names = new Map<string, string>(); // node key → unique name
  const taken = new Set<string>(); // entityKey of names in use
  const result: ImportRdfResult = { quads, labels: 0, triples: 0, entities: 0 };
  let batch: ImportBatch = { entities: [], triples: [], nquads: '' };
  const display = (term: AnyTerm): string => (term.termType === 'Literal' ? term.value : (labels.get(ntTerm(term))?.[0] ?? localName(term)));
  const ensure = (term: AnyTerm): string => {
    const key = ntTerm(term);
    if (names.has(key)) return key;
    const shown = display(term);
    // A blank label or empty literal still needs a name: fall back to its N-Triples form.
    const base = shown.trim() ? shown : key;
    let name = base;
    for (let n = 1; taken.has(entityKey(name)); n++) name = `${base} (${n === 1 ? qualifier(term) : n})`;
    taken.add(entityKey(name));
    names.set(key, name);
    const typeKey = types.get(key);
    const type = term.termType === 'Literal' ? 'Literal' : typeKey ? (labels.get(typeKey)?.[0] ?? localNameOfKey(typeKey)) : 'Resource';
    batch.entities.push({ key, name, type, kind: term.termType === 'Literal' ? 'literal' : 'resource', aliases: (labels.get(key) ?? []).filter((l) => l !== name) });
    result.entities++;
    return key;
  };
  for await (const q of quadsOf(ctx, 'convert')) {
    batch.nquads += `${ntTerm(q.subject)} ${ntTerm(q.predicate)} ${ntTerm(q.object)}${q.graph.termType === 'DefaultGraph' ? '' : ` ${ntTerm(q.graph)}`} .\n`;
    const sourceKey = ensure(q.subject);
    if (isLabel(q)) {
      result.labels++;
    } else {
      const targetKey = ensure(q.object);
      const relation = labels.get(ntTerm(q.predicate))?.[0] ?? humanise(localName(q.predicate));
      batch.triples.push({ sourceKey, relation, targetKey, text: verbaliseTriple(display(q.subject), relation, display(q.object)) });
      result.triples++;
    }
    if (batch.triples.length + batch.entities.length >= (options.batchSize ?? 5000)) {
      await options.onBatch(batch);
      batch = { entities: [], triples: [], nquads: '' };
    }
  }
  if (batch.nquads !== '') await options.onBatch(batch);
  return result;
}

interface Ctx {
  file: string;
  format: RdfFormat;
  options: ImportRdfOptions;
  totalBytes: number;
  baseIri: string;
}

async function* quadsOf(ctx: Ctx, phase: ImportProgress['phase']): AsyncGenerator<RdfQuad> {
  let bytes = 0;
  let lines = 1;
  let quads = 0;
  async function* chunks(): AsyncGenerator<Buffer> {
    const stream = createReadStream(ctx.file, { highWaterMark: 1 << 20 });
    const input = ctx.format === 'rdfxml' ? guardXmlEntities(stream, { file: ctx.file, maxExpansion: ctx.options.maxEntityExpansion ?? 64 << 20 }) : stream;
    for await (const chunk of input as AsyncIterable<Buffer>) {
      throwIfAborted(ctx.options.signal);
      // RDF/XML errors carry no position: feed it line by line so the failing line is known.
      for (const piece of ctx.format === 'rdfxml' ? splitLines(chunk) : [chunk]) {
        bytes += piece.length;
        yield piece;
        if (ctx.format === 'rdfxml') lines++;
      }
    }
  }
  try {
    for await (const wasmQuad of parse(chunks(), { format: MEDIA_TYPES[ctx.format], base_iri: ctx.baseIri })) {
      const q = fromOxigraph(wasmQuad);
      if (q.subject.termType === 'Quad' || q.object.termType === 'Quad') {
        throw new PolyhopError('UNSUPPORTED', `rdf import: ${basename(ctx.file)} uses RDF 1.2 triple terms, which Polyhop does not import`, { details: { file: ctx.file } });
      }
      if (++quads % 10_000 === 0) ctx.options.onProgress?.({ phase, quads, bytes, totalBytes: ctx.totalBytes });
      yield q;
    }
  } catch (error) {
    if (error instanceof PolyhopError) throw error;
    throw parseError(ctx.file, error, ctx.format === 'rdfxml' ? lines : null);
  }
  ctx.options.onProgress?.({ phase, quads, bytes, totalBytes: ctx.totalBytes });
}

function* splitLines(chunk: Buffer): Generator<Buffer> {
  let start = 0;
  for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, start)) {
    yield chunk.subarray(start, i + 1);
    start = i + 1;
  }
  if (start < chunk.length) yield chunk.subarray(start);
}

/** BAD_INPUT naming the file, line and column Oxigraph reported ("at line L between columns A and B", "between line L column C and …"). */
export function parseError(file: string, error: unknown, fallbackLine: number | null): PolyhopError {
  const reason = error instanceof Error ? error.message : String(error);
  const m = /at line (\d+) (?:between columns|column) (\d+)/.exec(reason) ?? /between line (\d+) column (\d+)/.exec(reason);
  const line = m ? Number(m[1]) : fallbackLine;
  const column = m ? Number(m[2]) : null;
  const where = line === null ? '' : column === null ? `:${line}` : `:${line}:${column}`;
  return new PolyhopError('BAD_INPUT', `rdf import: ${basename(file)}${where}: ${reason.replace(/^Parser error (?:at|between) [^:]*: /, '')}`, {
    details: { file, line, column, reason },
    cause: error,
  });
}

function isLabel(q: RdfQuad): boolean {
  return LABEL_PREDICATES.has(q.predicate.value) && q.object.termType === 'Literal';
}

/** The readable tail of an IRI (after the last '#', '/' or ':'), percent-decoded; a blank node's label. */
function localName(term: AnyTerm): string {
  if (term.termType !== 'NamedNode') return term.value;
  const tail = /[^#/:]*$/.exec(term.value)?.[0] ?? '';
  try {
    return decodeURIComponent(tail) || term.value;
  } catch {
    return tail || term.value;
  }
}

/** What tells two nodes with the same label apart: the IRI's local name, a literal's language or datatype. */
function qualifier(term: AnyTerm): string {
  if (term.termType === 'Literal') return term.language || localName({ termType: 'NamedNode', value: term.datatype?.value ?? '' });
  return term.termType === 'BlankNode' ? 'blank node' : localName(term);
}

function localNameOfKey(key: string): string {
  return key.startsWith('<') ? localName({ termType: 'NamedNode', value: key.slice(1, -1) }) : key;
}

/** "hasAffiliation" / "has_license" → "has affiliation" / "has license". */
function humanise(name: string): string {
  return name
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

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
import { NodeTable } from './NodeTable.js';

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
}

/** One statement that is not a label, verbalised for the triple index (embeddings, BM25). */
export interface ImportedTriple {
  sourceKey: string;
  /** The source entity's name (unique within the import, so it finds the entity again). */
  sourceName: string;
  /** The predicate's label or its humanised local name ("hasAffiliation" → "has affiliation"). */
  relation: string;
  targetKey: string;
  targetName: string;
  /** verbaliseTriple(sourceName, relation, targetName): what the KB derives from the stored triple too. */
  text: string;
}

/** A node's further labels (rdfs:label, skos:prefLabel / altLabel beyond its name). */
export interface ImportedAliases {
  key: string;
  name: string;
  /** Labels other than the name that no node of the import has as its name (names win). */
  aliases: string[];
}

export interface ImportBatch {
  /** Entities first seen in this batch; every key a triple of the batch uses was sent in this or an earlier batch. */
  entities: ImportedEntity[];
  triples: ImportedTriple[];
  /** Only in the last batches, after every entity was sent, so an alias can never shadow a later node's name. */
  aliases: ImportedAliases[];
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
  /** Nodes whose names are kept in memory; the others are looked up in the node table. Default: 50_000. */
  nameCacheSize?: number;
}

export interface ImportRdfResult {
  quads: number;
  /** Statements that became names or aliases (LABEL_PREDICATES with a literal object). */
  labels: number;
  triples: number;
  entities: number;
}

/**
 * Reads an RDF file into KB records in two streaming passes. Pass 1 parses everything (any syntax
 * error is BAD_INPUT with the parser's line and column, before anything was handed out) and
 * collects labels and first types; pass 2 names each node on first sight and hands out entities,
 * verbalised triples and the original statements in batches; the last batches carry the aliases.
 *
 * Memory holds one batch and a bounded cache of names, never the file nor a map of all nodes:
 * per-node state lives in a {@link NodeTable} (a temporary SQLite file), so a 1 GB graph imports in
 * the same memory as a 20 MB one. Literal values stay nodes (entities of type 'Literal'), as the
 * KB's triples link two entities: "Entity 5 has population 1234" is then an ordinary verbalised
 * triple for dense and BM25 retrieval, with no second store for attribute values.
 *
 * The caller stores the batches and undoes them if any later step fails; imports are all or nothing.
 */
export async function importRdf(file: string, options: ImportRdfOptions): Promise<ImportRdfResult> {
  const format = options.format ?? formatOfFile(file);
  const totalBytes = await stat(file).then(
    (s) => s.size,
    (error: unknown) => {
      throw new PolyhopError('NOT_FOUND', `rdf import: cannot read ${file}: ${(error as Error).message}`, {
        details: { file },
        cause: error,
      });
    },
  );
  const ctx: Ctx = { file, format, options, totalBytes, baseIri: options.baseIri ?? pathToFileURL(file).href };
  const nodes = NodeTable.open();
  try {
    // Pass 1: validate; remember labels and first types.
    let quads = 0;
    for await (const q of quadsOf(ctx, 'validate')) {
      quads++;
      if (isLabel(q)) nodes.addLabel(ntTerm(q.subject), q.object.value);
      else if (q.predicate.value === RDF_TYPE && q.object.termType !== 'Literal')
        nodes.addType(ntTerm(q.subject), ntTerm(q.object));
    }
    return await convert(ctx, nodes, quads);
  } finally {
    nodes.close();
  }
}

/** Pass 2: names nodes on first sight and hands out records in batches, then the aliases. */
async function convert(ctx: Ctx, nodes: NodeTable, quads: number): Promise<ImportRdfResult> {
  const { options } = ctx;
  const batchSize = options.batchSize ?? 5000;
  const cacheSize = options.nameCacheSize ?? 50_000;
  const result: ImportRdfResult = { quads, labels: 0, triples: 0, entities: 0 };
  let batch: ImportBatch = { entities: [], triples: [], aliases: [], nquads: '' };
  // Bounded caches: a graph's statements about one node are usually close together (N-Triples
  // dumps are often sorted by subject), so most lookups stay in JS without growing with the file.
  const cachedNames = new Map<string, string>();
  const cachedRelations = new Map<string, string>();
  const remember = <V>(cache: Map<string, V>, key: string, value: V): V => {
    if (cache.size >= cacheSize) cache.clear();
    cache.set(key, value);
    return value;
  };
  /** The node's name, named now if first seen. */
  const nameOf = (term: AnyTerm, key: string): string =>
    cachedNames.get(key) ?? remember(cachedNames, key, nodes.nameOf(key) ?? introduce(term, key));
  const introduce = (term: AnyTerm, key: string): string => {
    const literal = term.termType === 'Literal';
    const shown = literal ? term.value : (nodes.firstLabel(key) ?? localName(term));
    // A blank label or empty literal still needs a name: fall back to its N-Triples form.
    const base = shown.trim() ? shown : key;
    let name = base;
    let nameKey = entityKey(name);
    for (let n = 1; nodes.isTaken(nameKey); n++) {
      name = `${base} (${n === 1 ? qualifier(term) : n})`;
      nameKey = entityKey(name);
    }
    nodes.name(key, name, nameKey);
    const type = literal ? undefined : nodes.typeOf(key);
    batch.entities.push({
      key,
      name,
      type: literal ? 'Literal' : type ? (type.label ?? localNameOfKey(type.key)) : 'Resource',
      kind: literal ? 'literal' : 'resource',
    });
    result.entities++;
    return name;
  };
  const relationOf = (predicate: AnyTerm, key: string): string => {
    const cached = cachedRelations.get(key);
    if (cached !== undefined) return cached;
    // The KB refuses a blank relation: a blank label, or a local name of only '_', falls back to the IRI.
    return remember(
      cachedRelations,
      key,
      [nodes.firstLabel(key), humanise(localName(predicate))].find((r) => r?.trim()) ?? predicate.value,
    );
  };
  const flush = async (): Promise<void> => {
    await options.onBatch(batch);
    batch = { entities: [], triples: [], aliases: [], nquads: '' };
  };

  for await (const q of quadsOf(ctx, 'convert')) {
    const [sourceKey, predicateKey, targetKey] = [ntTerm(q.subject), ntTerm(q.predicate), ntTerm(q.object)];
    batch.nquads += `${sourceKey} ${predicateKey} ${targetKey}${q.graph.termType === 'DefaultGraph' ? '' : ` ${ntTerm(q.graph)}`} .\n`;
    const sourceName = nameOf(q.subject, sourceKey);
    if (isLabel(q)) {
      result.labels++;
    } else {
      const targetName = nameOf(q.object, targetKey);
      const relation = relationOf(q.predicate, predicateKey);
      batch.triples.push({
        sourceKey,
        sourceName,
        relation,
        targetKey,
        targetName,
        text: verbaliseTriple(sourceName, relation, targetName),
      });
      result.triples++;
    }
    if (batch.triples.length + batch.entities.length >= batchSize) await flush();
  }
  for (const page of nodes.aliases()) {
    throwIfAborted(options.signal);
    batch.aliases.push(...page);
    if (batch.triples.length + batch.entities.length + batch.aliases.length >= batchSize) await flush();
  }
  if (batch.nquads !== '' || batch.aliases.length > 0) await flush();
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
    const input =
      ctx.format === 'rdfxml'
        ? guardXmlEntities(stream, { file: ctx.file, maxExpansion: ctx.options.maxEntityExpansion ?? 64 << 20 })
        : stream;
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
        throw new PolyhopError(
          'UNSUPPORTED',
          `rdf import: ${basename(ctx.file)} uses RDF 1.2 triple terms, which Polyhop does not import`,
          { details: { file: ctx.file } },
        );
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
  const m =
    /at line (\d+) (?:between columns|column) (\d+)/.exec(reason) ?? /between line (\d+) column (\d+)/.exec(reason);
  const line = m ? Number(m[1]) : fallbackLine;
  const column = m ? Number(m[2]) : null;
  const where = line === null ? '' : column === null ? `:${line}` : `:${line}:${column}`;
  return new PolyhopError(
    'BAD_INPUT',
    `rdf import: ${basename(file)}${where}: ${reason.replace(/^Parser error (?:at|between) [^:]*: /, '')}`,
    {
      details: { file, line, column, reason },
      cause: error,
    },
  );
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
  if (term.termType === 'Literal')
    return term.language || localName({ termType: 'NamedNode', value: term.datatype?.value ?? '' });
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

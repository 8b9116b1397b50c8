import { seededRandom } from '../../support/seededRandom.js';
import { MemoryRdfSource } from '../../../src-main/engine/kb/rdf/MemoryRdfSource.js';

const POOLS = [
  'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  ' \t\n\r"\'<>{}|^`\\/#?&=%_.~-:;,@![]()*+$',
  'éüßçñøåÆŒ', // Latin-1 / Latin Extended
  'ªµº²³¹·', // letters and numbers outside Turtle's PN_CHARS
  'مرحبا بالعالم', // Arabic (RTL)
  'שלום עולם', // Hebrew (RTL)
  '\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2069', // bidi controls
  '日本語の名前中文名字한국어', // CJK
  'e\u0301a\u0308o\u0323', // combining marks
  '😀👩‍👩‍👧🇮🇹🏳️‍🌈', // emoji, ZWJ sequences, flags
  '\u0000\u0001\u001f\u007f\u0085\u00a0\u2028\u2029\ufeff\ufffd\ufffe\uffff',
  '\ud800\udbff\udc00\udfff', // lone surrogates (as single units)
  '\u{e0041}\u{e0100}\u{f0000}\u{10fffd}', // tags, variation selectors supplement, private use planes
];

/** A random name drawn from nasty character pools; `long` gives 10k+ characters. */
export function weirdName(next: () => number, long = false): string {
  const length = long ? 10_000 + Math.floor(next() * 500) : 1 + Math.floor(next() * 24);
  let out = '';
  while (out.length < length) {
    const pool = POOLS[Math.floor(next() * POOLS.length)] as string;
    const chars = pool.includes('\ud800') ? pool.split('') : [...pool];
    out += chars[Math.floor(next() * chars.length)];
  }
  return out;
}

/**
 * A small KB of `documents` documents with `chunksPerDocument` chunks each, entities with the given
 * names, and triples between random pairs (each triple's provenance one or two chunks).
 */
export function syntheticSource(options: {
  seed: number;
  entities: string[];
  documents: number;
  chunksPerDocument: number;
  triples: number;
  relations?: string[];
}): MemoryRdfSource {
  const next = rng(options.seed);
  const source = new MemoryRdfSource('https://polyhop.test/kb/fuzz/');
  const relations = options.relations ?? ['KING_OF', 'MARRIED_TO', 'LOCATED_IN', 'has part', 'works "with"'];
  let chunkId = 1;
  for (let d = 1; d <= options.documents; d++) {
    source.documentList.push({
      id: d,
      path: `/data/doc ${d} "quoted" <x>.txt`,
      title: `Document ${d}`,
      hash: 'ab'.repeat(32),
      mime: 'text/plain',
      size: 100,
      language: d % 2 ? 'en' : 'it',
      status: 'indexed',
      error: null,
      chunkCount: options.chunksPerDocument,
      tripleCount: 0,
      addedAt: '2026-01-01T00:00:00Z',
      containerId: null,
    });
    for (let c = 0; c < options.chunksPerDocument; c++) {
      source.chunkList.push({
        id: chunkId++,
        documentId: d,
        ord: options.chunksPerDocument - 1 - c, // stored out of order on purpose
        text: `Chunk ${c} of ${d}: "text"\nwith a newline and a tab\t.`,
        language: 'en',
        startOffset: c * 100,
        endOffset: c * 100 + 99,
        page: c % 3 === 0 ? null : c,
        summary: c % 2 ? `summary ${c}` : null,
        englishText: null,
      });
    }
  }
  options.entities.forEach((name, i) => {
    source.entityList.push({
      id: i + 1,
      name,
      type: i % 2 ? 'Person' : 'Place',
      summary: i % 3 ? `About ${name}` : null,
      summaryStale: false,
      aliases: i % 4 === 0 ? [`${name} alias`] : [],
    });
  });
  const seen = new Set<string>();
  for (let t = 1; source.tripleList.length < options.triples && t < options.triples * 10; t++) {
    const s = 1 + Math.floor(next() * options.entities.length);
    const o = 1 + Math.floor(next() * options.entities.length);
    const relation = relations[Math.floor(next() * relations.length)] as string;
    const key = `${s}|${relation}|${o}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const c1 = 1 + Math.floor(next() * (chunkId - 1));
    const chunkIds = next() < 0.3 ? [c1, 1 + Math.floor(next() * (chunkId - 1))] : [c1];
    source.tripleList.push({
      id: source.tripleList.length + 1,
      sourceId: s,
      sourceName: options.entities[s - 1] as string,
      relation,
      targetId: o,
      targetName: options.entities[o - 1] as string,
      description: next() < 0.8 ? `Because "${relation}"\n holds.` : null,
      chunkIds,
    });
  }
  return source;
}

/** Distinct names (distinct by exact string, as the KB's entity keys would make them). */
export function distinctWeirdNames(seed: number, count: number, longEvery = 0): string[] {
  const next = rng(seed);
  const names = new Set<string>();
  while (names.size < count) names.add(weirdName(next, longEvery > 0 && names.size % longEvery === 0));
  return [...names];
}

/** Deterministic PRNG so fuzz failures reproduce. */
export const rng = seededRandom;

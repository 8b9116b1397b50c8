import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Prng } from '../../../../src-main/engine/eval/stats/Prng.js';
import type { EmbedOptions, Embedder } from '../../../../src-main/engine/models/Embedder.js';
import { NgramEmbedder, embedNearAnchors } from '../../../support/NgramEmbedder.js';
import type { ScriptRule } from '../../../support/ScriptedLlm.js';
import { SCRIPTED_REDUCE_RULE } from '../../../support/corpusScript.js';
import { askedPairs } from '../../../support/disambiguatePrompt.js';
import { summariseBatchRule } from '../../../support/summariseBatchPrompt.js';

/**
 * A generated corpus of any size whose facts a scripted model can read back from the text itself:
 * every fact is one templated sentence ("Ada Kestrel is the mentor of Bo Ravensworth."), so the
 * rules below answer every MDER prompt exactly, whatever chunks the semantic chunker cuts. Some
 * people are also named with a title ("Captain Ada Kestrel"): the same person, which the embedder
 * puts next to the plain name and the model confirms, so disambiguation merges something.
 */

const FIRST = [
  'Ada',
  'Bruno',
  'Cleo',
  'Dario',
  'Elsa',
  'Farid',
  'Greta',
  'Hugo',
  'Ilse',
  'Jonas',
  'Kira',
  'Leon',
  'Mira',
  'Nils',
  'Olga',
  'Piet',
  'Rosa',
  'Sven',
  'Tove',
  'Uma',
];
const SYLLABLE_A = [
  'Kes',
  'Raven',
  'Thorn',
  'Ash',
  'Brook',
  'Holm',
  'Marl',
  'Wex',
  'Fen',
  'Lind',
  'Stor',
  'Vale',
  'Grim',
  'Oak',
  'Pell',
  'Quill',
  'Rook',
  'Sand',
  'Tarn',
  'Wyn',
];
const SYLLABLE_B = [
  'trel',
  'worth',
  'ley',
  'field',
  'ridge',
  'bury',
  'ston',
  'more',
  'wick',
  'dale',
  'croft',
  'hurst',
  'ford',
  'gate',
  'low',
  'mere',
  'shaw',
  'thorpe',
  'ton',
  'wood',
];
const PLACE_A = ['Ost', 'Nor', 'Sud', 'West', 'Alt', 'Neu', 'Hoch', 'Tief', 'Lang', 'Kurz'];
const PLACE_B = ['haven', 'burg', 'mark', 'stad', 'port', 'heim', 'vik', 'fjord', 'holm', 'wald'];
const ORG_A = ['Amber', 'Cobalt', 'Crimson', 'Golden', 'Iron', 'Ivory', 'Jade', 'Silver', 'Copper', 'Onyx'];
const ORG_B = ['Foundry', 'Guild', 'Press', 'Shipyard', 'Observatory', 'Mill', 'Library', 'Bank'];
const ROLES = ['mentor', 'rival', 'cousin', 'friend', 'apprentice', 'neighbour'];
const TITLES = ['Captain', 'Doctor'];
const FILLER = [
  'The winter that year was long and grey.',
  'Letters from that time are kept in the archive.',
  'Nobody remembers exactly when the bridge was built.',
  'The harbour was busy from spring to late autumn.',
  'Several of the old records were damaged by water.',
];

const NAME = String.raw`\p{Lu}[\p{L}]*(?: \p{Lu}[\p{L}]*)*`;
/** The sentence forms the generator writes and the scripted model reads, with the triple each states. */
const FACT_FORMS: readonly { re: RegExp; triple: (m: RegExpMatchArray) => [string, string, string, string, string] }[] =
  [
    {
      re: new RegExp(`(${NAME}) is the (\\p{Ll}+) of (${NAME})\\.`, 'gu'),
      triple: (m) => [m[1]!, 'Person', `${m[2]!.toUpperCase()}_OF`, m[3]!, 'Person'],
    },
    {
      re: new RegExp(`(${NAME}) lives in (${NAME})\\.`, 'gu'),
      triple: (m) => [m[1]!, 'Person', 'LIVES_IN', m[2]!, 'Place'],
    },
    {
      re: new RegExp(`(${NAME}) works for the (${NAME})\\.`, 'gu'),
      triple: (m) => [m[1]!, 'Person', 'WORKS_FOR', m[2]!, 'Organization'],
    },
    {
      re: new RegExp(`The (${NAME}) is based in (${NAME})\\.`, 'gu'),
      triple: (m) => [m[1]!, 'Organization', 'BASED_IN', m[2]!, 'Place'],
    },
  ];

/** The person a titled name refers to ("Captain Ada Kestrel" → "Ada Kestrel"); other names are themselves. */
export function syntheticCanonical(name: string): string {
  return name.replace(new RegExp(`^(?:${TITLES.join('|')}) `), '');
}

export interface SyntheticCorpusOptions {
  /** Seed of the generator. Default: 1. */
  seed?: number;
  /** Paragraphs per document. Default: 3. */
  paragraphs?: number;
  /** File names are `<prefix>-00001.txt` …. Default: 'doc'. */
  prefix?: string;
}

/**
 * Writes `count` plain-text documents (`doc-00001.txt` …) into `dir` and returns their paths. The
 * cast is drawn from pools that grow with the corpus, so entities recur across documents.
 */
export function writeSyntheticCorpus(dir: string, count: number, options: SyntheticCorpusOptions = {}): string[] {
  mkdirSync(dir, { recursive: true });
  const seed = options.seed ?? 1;
  const people = pool(
    Math.max(12, Math.round(count * 1.5)),
    (i) =>
      `${FIRST[i % FIRST.length]} ${SYLLABLE_A[Math.floor(i / FIRST.length) % SYLLABLE_A.length]}${SYLLABLE_B[Math.floor(i / (FIRST.length * SYLLABLE_A.length)) % SYLLABLE_B.length]}`,
  );
  const places = pool(
    Math.max(4, Math.round(count / 4)),
    (i) =>
      `${PLACE_A[i % PLACE_A.length]}${PLACE_B[Math.floor(i / PLACE_A.length) % PLACE_B.length]}${qualifier(Math.floor(i / 100))}`,
  );
  const orgs = pool(
    Math.max(3, Math.round(count / 8)),
    (i) =>
      `${ORG_A[i % ORG_A.length]} ${ORG_B[Math.floor(i / ORG_A.length) % ORG_B.length]}${qualifier(Math.floor(i / 80))}`,
  );
  const paths: string[] = [];
  for (let d = 0; d < count; d++) {
    const rng = new Prng(seed * 1_000_003 + d);
    const pick = <T>(items: readonly T[]): T => items[rng.nextInt(items.length)]!;
    const cast = new Set<number>();
    while (cast.size < Math.min(4, people.length)) cast.add(rng.nextInt(people.length));
    const castList = [...cast];
    const person = (k: number): string => {
      const index = castList[k % castList.length]!;
      // Every fifth person is sometimes named with a title: the alias disambiguation merges.
      return index % 5 === 0 && rng.next() < 0.5 ? `${TITLES[index % TITLES.length]} ${people[index]}` : people[index]!;
    };
    const place = pick(places);
    const org = pick(orgs);
    const paragraphs: string[] = [];
    for (let p = 0; p < (options.paragraphs ?? 3); p++) {
      const sentences = [
        `${person(p)} is the ${pick(ROLES)} of ${person(p + 1)}.`,
        p === 0 ? `${person(0)} lives in ${place}.` : `${person(p + 2)} works for the ${org}.`,
        p === 1 ? `The ${org} is based in ${place}.` : pick(FILLER),
        `In document ${d + 1}, part ${p + 1} ends here.`,
      ];
      paragraphs.push(sentences.join(' '));
    }
    const path = join(dir, `${options.prefix ?? 'doc'}-${String(d + 1).padStart(5, '0')}.txt`);
    writeFileSync(path, `${paragraphs.join('\n\n')}\n`);
    paths.push(path);
  }
  return paths;
}

function pool(size: number, name: (i: number) => string): string[] {
  return Array.from({ length: size }, (_, i) => name(i));
}

/** A second word that keeps large pools' names distinct (none for the first block). */
function qualifier(block: number): string {
  return block === 0
    ? ''
    : ` ${SYLLABLE_A[(block - 1) % SYLLABLE_A.length]}${SYLLABLE_B[Math.floor((block - 1) / SYLLABLE_A.length) % SYLLABLE_B.length]}`;
}

/** Triples the text states, in order, as the scripted model extracts them. */
export function syntheticTriples(
  text: string,
): { subject: string; subjectType: string; relation: string; object: string; objectType: string }[] {
  const found: { at: number; t: [string, string, string, string, string] }[] = [];
  for (const form of FACT_FORMS) for (const m of text.matchAll(form.re)) found.push({ at: m.index, t: form.triple(m) });
  return found
    .sort((a, b) => a.at - b.at)
    .map(({ t: [subject, subjectType, relation, object, objectType] }) => ({
      subject,
      subjectType,
      relation,
      object,
      objectType,
    }));
}

/** The description the scripted model writes for a triple. */
export function syntheticDescription(source: string, relation: string, target: string): string {
  return `${source} ${relation.toLowerCase().replace(/_/g, ' ')} ${target} (as the documents state).`;
}

/** ScriptedLlm rules answering every MDER prompt over a synthetic corpus like a perfect model. */
export function syntheticRules(): ScriptRule[] {
  // The "summary" is the chunk itself: the facts stay readable for map.
  const summarise: ScriptRule = { prompt: 'ingest/summarise', reply: (v) => ({ text: v.chunk! }) };
  return [
    summarise,
    summariseBatchRule(summarise),
    { prompt: 'ingest/translate', reply: (v) => ({ text: v.chunk! }) },
    { prompt: 'mder/map', reply: (v) => ({ triples: syntheticTriples(v.chunk!) }) },
    {
      prompt: 'mder/disambiguate',
      reply: (v) => ({
        decisions: askedPairs(v).map(({ pair, a, b }) => {
          const same = syntheticCanonical(a!) === syntheticCanonical(b!);
          return { pair, a, b, same, canonical: same ? syntheticCanonical(a!) : '' };
        }),
      }),
    },
    {
      prompt: 'mder/enrich',
      reply: (v) => ({
        descriptions: [...v.triples!.matchAll(/^(\d+)\. (.+) \| (\S+) \| (.+)$/gm)].map(([, id, s, r, t]) => ({
          id: Number(id),
          relation: r!,
          object: t!,
          description: syntheticDescription(s!, r!, t!),
        })),
      }),
    },
    SCRIPTED_REDUCE_RULE,
  ];
}

/**
 * NgramEmbedder, except that a titled name embeds next to its plain name (cosine ≈ 0.99), as a
 * semantic embedder would: without it "Captain Ada Kestrel" and "Ada Kestrel" never meet.
 */
export class SyntheticEmbedder implements Embedder {
  readonly identity = 'test-synthetic-embedder-256';
  readonly dimension = 256;
  readonly #inner = new NgramEmbedder(256);

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    return embedNearAnchors(this.#inner, texts, options, (t) => {
      const canonical = syntheticCanonical(t);
      return canonical === t ? null : canonical;
    });
  }

  async dispose(): Promise<void> {}
}

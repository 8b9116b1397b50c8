import { basename } from 'node:path';
import type { KnowledgeBase } from '../../../../src-main/engine/kb/index.js';
import type { IndexingResult } from '../../../../src-main/engine/mder/IndexingJob.js';
import type { Degradation } from '../../../support/UncooperativeLlm.js';
import { ALIAS_GROUPS, canonicalName, CHUNK_SCRIPT, CORPUS_FILES } from '../../../support/corpusScript.js';

/**
 * What an indexed corpus KB holds, in corpus terms (canonical names), so a run with a degrading
 * model can be measured against what a perfect model yields (the script): the triples each
 * document yields, and how many KB entities each multilingual entity ended up as.
 */
export interface KbFacts {
  /** Canonical "Source|RELATION|Target" keys per corpus file, from the triples' provenance. */
  triplesByFile: Map<string, Set<string>>;
  /** Per alias group (its canonical name): the KB entities carrying one of its names. */
  entitiesOf: Map<string, number>;
  /** Entities whose names are more than one corpus entity (a wrong merge), by name. */
  wrongMerges: string[];
  /** Documents (file names) with a recorded error or unit failure. */
  failedFiles: Set<string>;
  /** Each file's chunks: original and English text. */
  chunksOf: Map<string, { text: string; englishText: string }[]>;
}

/** The facts of each corpus file as the script states them (what a perfect model yields). */
export function scriptedFacts(): Map<string, Set<string>> {
  return new Map(
    CORPUS_FILES.map((f) => [
      f,
      new Set(
        CHUNK_SCRIPT[f].flatMap((c) => c.triples.map(([s, , r, o]) => `${canonicalName(s)}|${r}|${canonicalName(o)}`)),
      ),
    ]),
  );
}

/** Reads a KB's facts; `resolve` reads a name the model wrote ("Ulisse (Person)") as the corpus name it stands for. */
export function kbFacts(kb: KnowledgeBase, index: IndexingResult, resolve: (name: string) => string): KbFacts {
  const who = (name: string): string => canonicalName(resolve(name));
  const docs = new Map([...kb.documents.iterateDocuments()].map((d) => [d.id, d]));
  const fileOf = new Map([...kb.documents.iterateChunks()].map((c) => [c.id, basename(docs.get(c.documentId)!.path)]));
  const triplesByFile = new Map<string, Set<string>>(CORPUS_FILES.map((f) => [f, new Set()]));
  const chunksOf = new Map<string, { text: string; englishText: string }[]>(CORPUS_FILES.map((f) => [f, []]));
  for (const c of kb.documents.iterateChunks())
    chunksOf.get(fileOf.get(c.id)!)!.push({ text: c.text, englishText: c.englishText ?? '' });
  for (const t of kb.graph.iterateTriples()) {
    const fact = `${who(t.sourceName)}|${t.relation}|${who(t.targetName)}`;
    for (const id of t.chunkIds) triplesByFile.get(fileOf.get(id)!)!.add(fact);
  }
  const entitiesOf = new Map<string, number>(ALIAS_GROUPS.map((g) => [g[0]!, 0]));
  const wrongMerges: string[] = [];
  for (const e of kb.graph.iterateEntities()) {
    const names = new Set([e.name, ...e.aliases].map(who));
    if (names.size > 1) wrongMerges.push(`${e.name} = ${[...names].join(' + ')}`);
    for (const n of names) if (entitiesOf.has(n)) entitiesOf.set(n, entitiesOf.get(n)! + 1);
  }
  const failedIds = new Set([
    ...[...docs.values()].filter((d) => d.error !== null).map((d) => d.id),
    ...index.failures.map((f) => f.details.documentId).filter((id): id is number => typeof id === 'number'),
  ]);
  return {
    triplesByFile,
    entitiesOf,
    wrongMerges,
    failedFiles: new Set([...failedIds].map((id) => basename(docs.get(id)!.path))),
    chunksOf,
  };
}

/** Whitespace collapsed and citation marks dropped: how texts are compared across runs. */
const flat = (s: string): string =>
  s
    .replace(/\[\d+\]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/** Whether a prompt variable is (part of) a text, or holds it: a Map prompt gets a chunk's English text or a half of it. */
export function overlaps(variable: string | undefined, text: string): boolean {
  if (!variable || !text) return false;
  const a = flat(variable);
  const b = flat(text);
  return a.includes(b) || b.includes(a);
}

/** Kinds that remove a batch item, or change a reply so that what it said is lost. */
const LOSING: ReadonlySet<string> = new Set([
  'dropItem',
  'repeatItem',
  'emptyString',
  'cutAtMaxTokens',
  'contextOverflow',
  'idDrift',
  'renumberedIds',
  'textUnderTwoIds',
  'fixedKeyDrift',
  'sourceLanguage',
  'repetitionLoop',
  'emptyReply',
  'runtimeError',
  'skipItem',
  'fixedKey',
  'untranslated',
  'repetitionLoop',
  'emptyReply',
  'runtimeError',
]);

/** The canonical key of a `mder/map` batch item. */
function itemKey(item: unknown, resolve: (name: string) => string): string | null {
  if (!item || typeof item !== 'object') return null;
  const t = item as Record<string, unknown>;
  if (typeof t.subject !== 'string' || typeof t.object !== 'string' || typeof t.relation !== 'string') return null;
  return `${canonicalName(resolve(t.subject))}|${t.relation}|${canonicalName(resolve(t.object))}`;
}

/**
 * Why a fact a perfect model yields from a file is missing from a degraded run, or null when
 * nothing explains it (then the product lost it). Explanations are what the double recorded for
 * one of the file's chunks (its preprocessing or Map reply lost the fact), a recorded failure of
 * the document, or a wrong merge the model made in Disambiguate that renamed one of the fact's entities.
 */
export function explainLoss(
  file: string,
  fact: string,
  facts: KbFacts,
  degradations: readonly Degradation[],
  resolve: (name: string) => string,
): string | null {
  if (facts.failedFiles.has(file)) return 'document failure recorded';
  const chunks = facts.chunksOf.get(file) ?? [];
  for (const d of degradations) {
    if (!LOSING.has(d.kind)) continue;
    if (d.prompt === 'ingest/summarise' || d.prompt === 'ingest/translate') {
      if (chunks.some((c) => overlaps(d.variables.chunk, c.text))) return `${d.prompt} ${d.kind}`;
    } else if (d.prompt === 'mder/map' && chunks.some((c) => overlaps(d.variables.chunk, c.englishText))) {
      // A whole reply lost (cut, refused, empty), or this very triple dropped or rewritten.
      if (d.item === undefined) return `mder/map ${d.kind}`;
      if (itemKey(d.item, resolve) === fact) return `mder/map ${d.kind} ${d.at}`;
    }
  }
  const [source, , target] = fact.split('|');
  const merged = facts.wrongMerges.find((m) => m.includes(` ${source}`) || m.includes(` ${target}`));
  if (merged && degradations.some((d) => d.prompt === 'mder/disambiguate')) return `wrong merge ${merged}`;
  return null;
}

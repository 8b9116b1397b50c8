import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, dirname } from 'node:path';
import { sha256Hex } from '../../src-main/engine/base/hash.js';
import type { EmbedOptions, Embedder } from '../../src-main/engine/models/Embedder.js';
import type { DocumentRecord, KnowledgeBase } from '../../src-main/engine/kb/index.js';
import type { ScriptRule } from './ScriptedLlm.js';
import { NgramEmbedder, embedNearAnchors } from './NgramEmbedder.js';
import { askedPairs } from './disambiguatePrompt.js';
import { summariseBatchRule } from './summariseBatchPrompt.js';

/**
 * What a perfect model answers for the hand-written corpus in `test/support/corpus/` (Odysseus,
 * in English, Italian, French and Spanish), as ScriptedLlm rules for the MDER prompts. Rules match
 * on prompt variables (the fenced chunk text, the numbered triples, the entity blocks), never on
 * prompt prose. Reusable by any test that needs an indexed Odysseus KB.
 */

export const CORPUS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'corpus');

export const CORPUS_FILES = ['odysseus.en.md', 'ulisse.it.txt', 'penelope.fr.txt', 'telemaco.es.txt'] as const;
export type CorpusFile = (typeof CORPUS_FILES)[number];

const LANGUAGE: Record<CorpusFile, string> = {
  'odysseus.en.md': 'en',
  'ulisse.it.txt': 'it',
  'penelope.fr.txt': 'fr',
  'telemaco.es.txt': 'es',
};

/** [subject, subjectType, RELATION, object, objectType] as the model extracts it from one chunk. */
export type ScriptTriple = readonly [string, string, string, string, string];

interface ChunkScript {
  /** English windowed summary (the chunk's englishText). */
  summary: string;
  triples: readonly ScriptTriple[];
}

/** Per file, per paragraph (chunk ord). */
export const CHUNK_SCRIPT: Record<CorpusFile, readonly ChunkScript[]> = {
  'odysseus.en.md': [
    {
      summary: 'Odysseus was the king of Ithaca. Odysseus was the son of Laertes and the husband of Penelope.',
      triples: [
        ['Odysseus', 'Person', 'KING_OF', 'Ithaca', 'Island'],
        ['Odysseus', 'Person', 'SON_OF', 'Laertes', 'Person'],
        ['Odysseus', 'Person', 'MARRIED_TO', 'Penelope', 'Person'],
      ],
    },
    {
      summary:
        'After the fall of Troy, Odysseus wandered at sea for ten years because the god Poseidon was angry with him.',
      triples: [
        ['Odysseus', 'Person', 'WANDERED_AFTER', 'Fall of Troy', 'Event'],
        ['Odysseus', 'Person', 'WANDERED_FOR', 'Ten Years', 'Duration'],
        ['Poseidon', 'God', 'ANGRY_WITH', 'Odysseus', 'Person'],
      ],
    },
    {
      summary: 'Telemachus, the son of Odysseus and Penelope, searched for his father Odysseus in Pylos and in Sparta.',
      triples: [
        ['Telemachus', 'Person', 'SON_OF', 'Odysseus', 'Person'],
        ['Telemachus', 'Person', 'SON_OF', 'Penelope', 'Person'],
        ['Telemachus', 'Person', 'SEARCHED_IN', 'Pylos', 'City'],
        ['Telemachus', 'Person', 'SEARCHED_IN', 'Sparta', 'City'],
      ],
    },
  ],
  'ulisse.it.txt': [
    {
      summary: 'Ulysses, king of Ithaca, returned home disguised as a beggar.',
      triples: [
        ['Ulysses', 'Person', 'KING_OF', 'Ithaca', 'Island'],
        ['Ulysses', 'Person', 'RETURNED_TO', 'Ithaca', 'Island'],
        ['Ulysses', 'Person', 'DISGUISED_AS', 'Beggar', 'Role'],
      ],
    },
    {
      summary:
        'Penelope, the wife of Ulysses, wove a shroud by day and unravelled it every night to deceive the Suitors (Proci).',
      triples: [
        ['Penelope', 'Person', 'MARRIED_TO', 'Ulysses', 'Person'],
        ['Penelope', 'Person', 'WOVE', 'Shroud', 'Object'],
        ['Penelope', 'Person', 'DECEIVED', 'Suitors', 'Group'],
      ],
    },
  ],
  'penelope.fr.txt': [
    {
      summary: 'Pénélope is the daughter of Icarius. Pénélope waited twenty years for the return of Ulysses.',
      triples: [
        ['Pénélope', 'Person', 'DAUGHTER_OF', 'Icarius', 'Person'],
        ['Pénélope', 'Person', 'WAITED_FOR', 'Ulysses', 'Person'],
      ],
    },
  ],
  'telemaco.es.txt': [
    {
      summary: 'Telémaco, son of Ulises, helped his father defeat the Suitors.',
      triples: [
        ['Telémaco', 'Person', 'SON_OF', 'Ulises', 'Person'],
        ['Telémaco', 'Person', 'HELPED', 'Ulises', 'Person'],
        ['Ulises', 'Person', 'DEFEATED', 'Suitors', 'Group'],
      ],
    },
  ],
};

/** Names a good model confirms as the same entity; the first is the canonical name it gives. */
export const ALIAS_GROUPS: readonly (readonly string[])[] = [
  ['Odysseus', 'Ulysses', 'Ulises'],
  ['Penelope', 'Pénélope'],
  ['Telemachus', 'Telémaco'],
];

/**
 * Forms of the corpus's names in its other languages (and English variants): what a model may
 * write instead of the English name (test/support/UncooperativeLlm.ts `nameVariants`).
 */
export const NAME_VARIANTS: Readonly<Record<string, readonly string[]>> = {
  Odysseus: ['Ulisse', 'Ulysse', 'Ulises', 'Odisseo'],
  Penelope: ['Pénélope', 'Penélope'],
  Telemachus: ['Telemaco', 'Télémaque', 'Telémaco'],
  Ithaca: ['Itaca', 'Ithaque', 'Ítaca'],
  Suitors: ['Proci', 'Prétendants', 'Pretendientes'],
  Poseidon: ['Poseidone', 'Poséidon', 'Poseidón'],
  Sparta: ['Sparte', 'Esparta'],
  Laertes: ['Laerte', 'Laërte'],
  Icarius: ['Icario', 'Icare'],
};

/** Names a (semantic) embedder puts close together although they are different things: the model rejects them. */
export const NEAR_BUT_DIFFERENT: readonly (readonly string[])[] = [['Pylos', 'Sparta']];

/** Descriptions by canonical triple "Source|RELATION|Target" (after disambiguation). */
export const DESCRIPTIONS: Record<string, string> = {
  'Odysseus|KING_OF|Ithaca': 'Odysseus was the king of Ithaca, to which he returned disguised as a beggar.',
  'Odysseus|SON_OF|Laertes': 'Odysseus was the son of Laertes.',
  'Odysseus|MARRIED_TO|Penelope': 'Odysseus was the husband of Penelope.',
  'Odysseus|WANDERED_AFTER|Fall of Troy': 'Odysseus began wandering at sea after the fall of Troy.',
  'Odysseus|WANDERED_FOR|Ten Years': 'Odysseus wandered at sea for ten years after the fall of Troy.',
  'Poseidon|ANGRY_WITH|Odysseus': "The god Poseidon's anger at Odysseus caused his ten years of wandering at sea.",
  'Telemachus|SON_OF|Odysseus': 'Telemachus was the son of Odysseus and Penelope.',
  'Telemachus|SON_OF|Penelope': 'Telemachus was the son of Penelope and Odysseus.',
  'Telemachus|SEARCHED_IN|Pylos': 'Telemachus searched for his father Odysseus in Pylos.',
  'Telemachus|SEARCHED_IN|Sparta': 'Telemachus searched for his father Odysseus in Sparta.',
  'Odysseus|RETURNED_TO|Ithaca': 'Odysseus returned home to Ithaca disguised as a beggar.',
  'Odysseus|DISGUISED_AS|Beggar': 'Odysseus disguised himself as a beggar when he returned home to Ithaca.',
  'Penelope|MARRIED_TO|Odysseus': 'Penelope was the wife of Odysseus.',
  'Penelope|WOVE|Shroud': 'Penelope wove a shroud by day and unravelled it every night.',
  'Penelope|DECEIVED|Suitors': 'Penelope deceived the Suitors by unravelling her weaving every night.',
  'Penelope|DAUGHTER_OF|Icarius': 'Penelope was the daughter of Icarius.',
  'Penelope|WAITED_FOR|Odysseus': 'Penelope waited twenty years for Odysseus to return.',
  'Telemachus|HELPED|Odysseus': 'Telemachus helped his father Odysseus defeat the Suitors.',
  'Odysseus|DEFEATED|Suitors': 'Odysseus defeated the Suitors with the help of his son Telemachus.',
};

/**
 * The entity blocks of a `mder/reduce` prompt: id, name, type, fact lines, and whether the block
 * is one part of a hub entity's facts (then the scripted model only joins the lines).
 */
export function reduceBlocks(
  entities: string,
): { id: number; name: string; type: string; facts: string[]; part: boolean }[] {
  return entities.split(/\n\n(?=\d+\. Entity: )/).map((block) => {
    const head = /^(\d+)\. Entity: (.+) \(type: (.+)\)$/m.exec(block);
    if (!head) throw new Error(`corpusScript: no entity in ${block}`);
    const facts = [...block.matchAll(/^- (.+)$/gm)].map((m) => m[1]!);
    return { id: Number(head[1]), name: head[2]!, type: head[3]!, facts, part: /^Part: /m.test(block) };
  });
}

/** The summary the scripted model writes: "<name> (<type>): <facts, in the order given>". */
export function scriptedSummary(name: string, type: string, facts: readonly string[]): string {
  return `${name} (${type}): ${facts.join(' ')}`;
}

export function canonicalName(name: string): string {
  return ALIAS_GROUPS.find((g) => g.includes(name))?.[0] ?? name;
}

/** Paragraphs (blank-line separated) of a corpus file: the chunks the tests use. */
export function corpusParagraphs(file: CorpusFile): { text: string; start: number; end: number }[] {
  const text = readFileSync(join(CORPUS_DIR, file), 'utf8');
  const out: { text: string; start: number; end: number }[] = [];
  const re = /[^\n](?:[\s\S]*?)(?=\n\s*\n|\s*$)/g;
  for (const m of text.matchAll(re)) out.push({ text: m[0].trim(), start: m.index, end: m.index + m[0].length });
  return out;
}

/** Adds a corpus file to a KB as a pending document with one chunk per paragraph (no loader, no chunker). */
export function addCorpusDocument(kb: KnowledgeBase, file: CorpusFile): DocumentRecord {
  const path = join(CORPUS_DIR, file);
  const bytes = readFileSync(path);
  const doc = kb.documents.addDocument({
    path,
    title: file,
    hash: sha256Hex(bytes),
    mime: file.endsWith('.md') ? 'text/markdown' : 'text/plain',
    size: bytes.length,
    language: LANGUAGE[file],
  });
  kb.documents.replaceChunks(
    doc.id,
    corpusParagraphs(file).map((p, ord) => ({
      ord,
      text: p.text,
      language: LANGUAGE[file],
      startOffset: p.start,
      endOffset: p.end,
      page: null,
    })),
  );
  return kb.documents.getDocument(doc.id)!;
}

/** Document text as prompts see it (the preprocess fence trims). */
const fenced = (s: string): string => s.trim();

/**
 * Finds the script of a chunk by its text. Tests that chunk by paragraph hit a key exactly; a
 * chunker that joins several paragraphs into one chunk gets their scripts joined, in order.
 */
class ScriptLookup {
  readonly #byKey: Map<string, ChunkScript>;

  constructor(entries: Iterable<readonly [string, ChunkScript]>) {
    this.#byKey = new Map(entries);
  }

  get(text: string): ChunkScript | undefined {
    const exact = this.#byKey.get(fenced(text));
    if (exact) return exact;
    const flat = squash(text);
    // A paragraph the chunker cut in two is the chunk's where it starts: a model reads the facts of
    // the sentences it sees, so the document still yields all of them.
    const parts = [...this.#byKey.entries()]
      .map(([key, script]) => ({ at: startsIn(flat, squash(key)), script }))
      .filter((p) => p.at >= 0)
      .sort((a, b) => a.at - b.at);
    // A chunk holding no scripted paragraph (a heading cut off by the chunker) states no facts.
    if (parts.length === 0) return { summary: squash(text), triples: [] };
    return { summary: parts.map((p) => p.script.summary).join(' '), triples: parts.flatMap((p) => p.script.triples) };
  }
}

/** Whitespace collapsed and Markdown heading marks dropped, as the Markdown loader does; citation marks a model glued on ("Ithaca[1].") dropped. */
const squash = (s: string): string =>
  s
    .replace(/^#+\s+/gm, '')
    .replace(/\[\d+\]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/** Where a paragraph (whole, or its first sentence) starts in a text, or -1. */
function startsIn(text: string, paragraph: string): number {
  const whole = text.indexOf(paragraph);
  if (whole >= 0) return whole;
  const first = /^.+?[.!?](?=\s|$)/.exec(paragraph)?.[0];
  return first && first.length < paragraph.length ? text.indexOf(first) : -1;
}

function chunkByText(): ScriptLookup {
  return new ScriptLookup(
    CORPUS_FILES.flatMap((file) =>
      corpusParagraphs(file).map((p, i) => [fenced(p.text), CHUNK_SCRIPT[file][i]!] as const),
    ),
  );
}

function chunkBySummary(): ScriptLookup {
  return new ScriptLookup(CORPUS_FILES.flatMap((f) => CHUNK_SCRIPT[f].map((c) => [fenced(c.summary), c] as const)));
}

/** Options of {@link corpusRules}. */
export interface CorpusRulesOptions {
  /** Prompt names whose reply is replaced by schema-invalid JSON when `when` matches (failure tests). */
  breakOn?: { prompt: string; when: (variables: Readonly<Record<string, string>>) => boolean }[];
  /**
   * Reads a name in a prompt as the model understands it (e.g. UncooperativeLlm's `resolveName`:
   * "Ulisse (Person)" is Ulysses). Default: as written.
   */
  resolveName?: (name: string) => string;
  /**
   * Describes a triple the script does not know (e.g. one between entities a degraded run merged
   * wrongly) by {@link plainDescription}, as a model would, instead of failing the test. Default: false.
   */
  describeUnscripted?: boolean;
}

/** The description a model writes for a triple with no context: the triple in words. */
export function plainDescription(source: string, relation: string, target: string): string {
  return `${source} ${relation.toLowerCase().replace(/_/g, ' ')} ${target}.`;
}

/** A Reduce rule: each entity's summary is {@link scriptedSummary}; a part of a hub entity's facts, its lines joined. */
export const SCRIPTED_REDUCE_RULE: ScriptRule = {
  prompt: 'mder/reduce',
  reply: (v) => ({
    summaries: reduceBlocks(v.entities!).map((b) => ({
      id: b.id,
      name: b.name,
      summary: b.part ? b.facts.join(' ') : scriptedSummary(b.name, b.type, b.facts),
    })),
  }),
};

/** A Disambiguate rule for tests about other stages: every candidate pair is two entities. */
export const NO_MERGES_RULE: ScriptRule = {
  prompt: 'mder/disambiguate',
  reply: (v) => ({
    decisions: askedPairs(v).map(({ pair, a, b }) => ({ pair, a, b, same: false, canonical: '' })),
  }),
};

/** ScriptedLlm rules answering every MDER prompt over the corpus like a perfect model. */
export function corpusRules(options: CorpusRulesOptions = {}): ScriptRule[] {
  const resolve = options.resolveName ?? ((name: string) => name);
  const canonical = (name: string): string => canonicalName(resolve(name));
  const byText = chunkByText();
  const bySummary = chunkBySummary();
  const broken: ScriptRule[] = (options.breakOn ?? []).map((b) => ({
    prompt: b.prompt,
    when: b.when,
    reply: () => ({ unexpected: 'shape' }),
  }));
  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`corpusScript: no scripted answer for ${what}`);
    return value;
  };
  const summarise: ScriptRule = {
    prompt: 'ingest/summarise',
    reply: (v) => ({ text: need(byText.get(v.chunk!), `summary of ${v.chunk}`).summary }),
  };
  return [
    ...broken,
    summarise,
    summariseBatchRule(summarise),
    {
      prompt: 'ingest/translate',
      reply: (v) => ({ text: need(byText.get(v.chunk!), `translation of ${v.chunk}`).summary }),
    },
    {
      prompt: 'mder/map',
      reply: (v) => ({
        triples: need(bySummary.get(v.chunk!), `triples of ${v.chunk}`).triples.map(
          ([subject, subjectType, relation, object, objectType]) => ({
            subject,
            subjectType,
            relation,
            object,
            objectType,
          }),
        ),
      }),
    },
    {
      prompt: 'mder/disambiguate',
      reply: (v) => ({
        decisions: askedPairs(v).map(({ pair, a, b }) => {
          const same = canonical(a!) === canonical(b!) && ALIAS_GROUPS.some((g) => g.includes(canonical(a!)));
          return { pair, a, b, same, canonical: same ? canonical(a!) : '' };
        }),
      }),
    },
    {
      prompt: 'mder/enrich',
      reply: (v) => ({
        descriptions: [...v.triples!.matchAll(/^(\d+)\. (.+) \| (\S+) \| (.+)$/gm)].map(([, id, s, r, t]) => {
          const key = `${canonical(s!)}|${r}|${canonical(t!)}`;
          const scripted = DESCRIPTIONS[key] ?? (options.describeUnscripted ? plainDescription(s!, r!, t!) : undefined);
          return { id: Number(id), relation: r!, object: t!, description: need(scripted, `description of ${key}`) };
        }),
      }),
    },
    SCRIPTED_REDUCE_RULE,
  ];
}

/**
 * A test embedder that behaves like a semantic one for the corpus: names of one alias group (or
 * of NEAR_BUT_DIFFERENT) embed next to the group's first name (cosine ≈ 0.98), everything else as
 * NgramEmbedder does. Without it, "Odysseus" and "Ulysses" share no trigram and never meet.
 */
export class CorpusEmbedder implements Embedder {
  readonly identity = 'test-corpus-embedder-256';
  readonly dimension = 256;
  readonly #inner = new NgramEmbedder(256);
  calls = 0;

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    this.calls++;
    const groups = [...ALIAS_GROUPS, ...NEAR_BUT_DIFFERENT];
    return embedNearAnchors(this.#inner, texts, options, (t) => groups.find((g) => g.includes(t))?.[0] ?? null);
  }

  async dispose(): Promise<void> {}
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Parser } from 'n3';
import { describe, expect, it } from 'vitest';
import { STRATEGIES, type Answer, type StrategyName } from '../../../src-main/engine/api/contract.js';
import type { IndexingResult } from '../../../src-main/engine/mder/IndexingJob.js';
import type { SchemaEnforcement } from '../../support/grammarValues.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';
import { UncooperativeLlm, type Degradation, type DegradationRates } from '../../support/UncooperativeLlm.js';
import {
  canonicalName,
  CORPUS_DIR,
  CORPUS_FILES,
  corpusRules,
  DESCRIPTIONS,
  NAME_VARIANTS,
  plainDescription,
} from '../../support/corpusScript.js';
import { call, runJobToEnd, tempEngine } from '../../support/tempEngine.js';
import { QaEmbedder, qaRules, WIFE_OF_KING } from '../qa/support/qaScript.js';
import { databaseHealth, rdfAgainstSqlite } from './support/kbChecks.js';
import { explainLoss, kbFacts, scriptedFacts, type KbFacts } from './support/productFacts.js';

/**
 * The whole product with a model that does not cooperate (test/support/UncooperativeLlm.ts), over
 * many seeds: index the multilingual corpus, ask with every strategy, export. Whatever the model
 * does, nothing crashes, the KB is intact and its RDF view agrees with SQLite, no description,
 * summary or merge lands on the wrong item. And nothing is lost that the model did not lose: each
 * seed is measured against what a perfect model yields (the script: the triples of every document
 * in every language, the entities merged across languages, the answer of every strategy), which a
 * cooperative run under the same limits must reach exactly; whatever a seed misses must be
 * explained by a degradation the double recorded or a failure the product recorded. Half the seeds
 * run a model held to each call's grammar, half one that ignores the schema (see `modeOf`), and
 * every check holds for each half on its own.
 */

/** Seeds run; the exact coverage check needs at least this many, so a smaller setting is refused. */
const MIN_SEEDS = 50;
const SEEDS = Number(process.env.POLYHOP_UNCOOPERATIVE_SEEDS ?? MIN_SEEDS);
const MODES = ['grammar', 'ignored'] as const satisfies readonly SchemaEnforcement[];
/** Runs every seed in one mode (e.g. to rerun a failing seed's neighbours in it); unset, the seeds alternate. */
const FORCED_MODE = process.env.POLYHOP_UNCOOPERATIVE_SCHEMA;
/**
 * How the seed's model treats a call's schema, as the product meets models: the local runtime
 * holds every reply to the schema's grammar (`grammar`), an inference server may ignore it
 * (`ignored`). Even seeds are grammar-bound, odd ones not, so each mode gets half the seeds and
 * the same checks.
 */
const modeOf = (seed: number): SchemaEnforcement =>
  (FORCED_MODE as SchemaEnforcement | undefined) ?? (seed % 2 === 0 ? 'grammar' : 'ignored');
const KB = 'odyssey';
const QUESTIONS: Record<StrategyName, string> = {
  dr: WIFE_OF_KING.it,
  hyp: WIFE_OF_KING.en,
  dapt: WIFE_OF_KING.fr,
  vector: WIFE_OF_KING.en,
  'llm-only': WIFE_OF_KING.es,
};
/** The expected answer of the questions above, in the corpus's spellings. */
const PENELOPE = /p[eé]n[eé]lope/i;
/** Citation marks a model glued on ("Ithaca[1].") are not content. */
const content = (text: string): string => text.replace(/\[\d+\]/g, '');
const NO_DEGRADATION: DegradationRates = {
  dropItem: 0,
  repeatItem: 0,
  swapItems: 0,
  foreignName: 0,
  typeSuffix: 0,
  placeholder: 0,
  gluedCitation: 0,
  reasoningPrefix: 0,
  longString: 0,
  emptyString: 0,
  thinking: 0,
  renumberedIds: 0,
  textUnderTwoIds: 0,
  fixedKeyDrift: 0,
  flippedVerdict: 0,
  inflatedScore: 0,
  sourceLanguage: 0,
  repetitionLoop: 0,
  emptyReply: 0,
  runtimeError: 0,
};

interface Yields {
  triples: number;
  merged: number;
  answers: Record<StrategyName, number>;
}
/**
 * What the product keeps, per mode, from a model that degrades at DEFAULT_RATES, as a share of what
 * a perfect model yields: the mean over seeds 1–200 (100 per mode; POLYHOP_UNCOOPERATIVE_SEEDS=200,
 * 23 min on the shared dev machine at load 9) and the standard deviation between seeds of a seed's
 * share, as the yield test prints them; measured 2026-12-07 at 09b7bd6, with Preprocess's default
 * of 8 one-chunk documents to a call. (This corpus's one-chunk documents are in French and
 * Spanish, one each, so Preprocess makes no batched call here at any setting: the double degraded
 * none in the 200 seeds; batches meet it in test/unit/mder/uncooperativeBatches.test.ts.) The
 * floors were first taken from seeds 1–50 alone (ignored: triples 0.935, merged 0.627, floors
 * 0.900 and 0.527), which the 200 seeds show were a lucky sample: over them the ignored seeds read
 * 0.924 and 0.523, the merges under their old floor (the 200-seed run failed there). Remeasure when a change moves the double's seeded draws (a new call, a new
 * degradation) and say so in the commit.
 */
const MEASURED: Record<SchemaEnforcement, Yields & { sd: { triples: number; merged: number } }> = {
  grammar: {
    triples: 0.92,
    merged: 0.64,
    sd: { triples: 0.078, merged: 0.254 },
    answers: { dr: 0.78, hyp: 0.71, dapt: 0.97, vector: 0.98, 'llm-only': 0.93 },
  },
  ignored: {
    triples: 0.924,
    merged: 0.523,
    sd: { triples: 0.072, merged: 0.285 },
    answers: { dr: 0.84, hyp: 0.82, dapt: 0.97, vector: 0.97, 'llm-only': 0.98 },
  },
};
/** Seeds per mode at the default setting: the sample the floors are sized for. */
const SEEDS_PER_MODE = MIN_SEEDS / 2;
/**
 * Standard errors of a 25-seed mean a floor lies under the measured mean. A default run's yield is
 * a mean over 25 seeds per mode; a change that only reshuffles the seeded draws leaves it a fresh
 * sample of that mean, which falls more than 3 standard errors low about once in 740 (normal
 * tail), so about once in 50 for the 14 floors together. A change is caught for sure only when
 * it moves a mean by more than that: about 0.045 of the triples, 0.15–0.17 of the merges (three
 * per seed, all or none of a group: their spread is large), 0.08–0.27 of an answer rate. The floors
 * that follow: grammar triples 0.873, merged 0.487; ignored triples 0.880, merged 0.352.
 */
const STANDARD_ERRORS = 3;
const floorOf = (mean: number, sd: number): number =>
  Math.floor((mean - (STANDARD_ERRORS * sd) / Math.sqrt(SEEDS_PER_MODE)) * 1000) / 1000;
/**
 * A strategy's answer rate is a count of seeds: the binomial spread of a seed (sqrt(p(1 - p))),
 * and at least two seeds under the mean (rule of three: 25 of 25 is compatible with a true rate of
 * 0.89). Triples and merges use the spread measured between seeds.
 * Aggregate floors, not per-seed ones: per seed the reference is already the cooperative run's (it
 * reaches the script exactly, its own test), and a seed's losses with a recorded reason are allowed
 * by the per-seed test; what only a rate over seeds can see is a change that makes excused losses
 * more frequent. Most of what is lost is the double's (ids renumbered after a skipped item,
 * untranslated chunks, repetition loops and runtime errors that fail a whole Map or Preprocess
 * unit, which the product records as a document failure and does not ask again within the run:
 * open work).
 */
const answerFloor = (p: number): number =>
  Math.min(floorOf(p, Math.sqrt(p * (1 - p))), Math.floor((p - 2 / SEEDS_PER_MODE) * 1000) / 1000);
const MIN_YIELD: Record<SchemaEnforcement, Yields> = Object.fromEntries(
  MODES.map((mode) => {
    const m = MEASURED[mode];
    const answers = Object.fromEntries(STRATEGIES.map((s) => [s, answerFloor(m.answers[s])]));
    return [mode, { triples: floorOf(m.triples, m.sd.triples), merged: floorOf(m.merged, m.sd.merged), answers }];
  }),
) as Record<SchemaEnforcement, Yields>;

function model(seed: number, schema: SchemaEnforcement, rates?: DegradationRates): UncooperativeLlm {
  // The script reads prompts as written: it understands only the names the corpus uses, not the double's degradations.
  const rules = [...corpusRules({ describeUnscripted: true }), ...qaRules()];
  return new UncooperativeLlm(new ScriptedLlm(rules, { schema }), {
    seed,
    schema,
    nameVariants: NAME_VARIANTS,
    contextTokens: 4096,
    ...(rates ? { rates } : {}),
  });
}

interface AskRun {
  answer: Answer;
  /** Degradations the double made while answering. */
  degradations: Degradation[];
}

interface SeedRun {
  schema: SchemaEnforcement;
  llm: UncooperativeLlm;
  index: IndexingResult;
  facts: KbFacts;
  answers: Record<StrategyName, AskRun>;
}

/** Indexes, asks, exports once per seed, checking integrity on the way; shared by every test that needs the seed. */
async function runSeed(seed: number, schema: SchemaEnforcement, rates?: DegradationRates): Promise<SeedRun> {
  const llm = model(seed, schema, rates);
  const { engine, dataDir, dispose } = await tempEngine({ llm, embedder: new QaEmbedder() });
  try {
    await call(engine, 'kb:create', { name: KB });
    await call(engine, 'docs:add', { kb: KB, paths: CORPUS_FILES.map((f) => join(CORPUS_DIR, f)) });
    const indexed = await runJobToEnd(engine, 'index:start', { kb: KB });
    expect(indexed.error, JSON.stringify(indexed.error)).toBeNull();
    const index = indexed.result as IndexingResult;
    const kb = engine.kbs.get(KB).kb;
    const facts = kbFacts(kb, index, llm.resolveName);

    const answers = {} as Record<StrategyName, AskRun>;
    for (const strategy of STRATEGIES) {
      const before = llm.degradations.length;
      const asked = await runJobToEnd(engine, 'qa:ask', { kb: KB, question: QUESTIONS[strategy], strategy });
      expect(asked.error, `${strategy}: ${JSON.stringify(asked.error)}`).toBeNull();
      answers[strategy] = { answer: asked.result as Answer, degradations: llm.degradations.slice(before) };
    }

    const turtle = join(dataDir, 'export.ttl');
    const exported = await runJobToEnd(engine, 'rdf:export', {
      kb: KB,
      format: 'turtle',
      scope: { kind: 'all' },
      outputPath: turtle,
    });
    expect(exported.error).toBeNull();
    expect(new Parser({ format: 'Turtle' }).parse(readFileSync(turtle, 'utf8')).length).toBe(
      (exported.result as { quads: number }).quads,
    );

    // An intact KB whose RDF view holds what SQLite holds.
    const health = databaseHealth(engine.kbs.registry.get(KB).file);
    expect(health.integrity).toEqual(['ok']);
    expect(health.foreignKeys).toEqual([]);
    const rdf = await rdfAgainstSqlite(engine, KB, kb);
    expect(rdf.view).toEqual(rdf.sqlite);

    const entities = [...kb.graph.iterateEntities()];
    // Merges: an entity names one corpus entity, unless the model itself confirmed a wrong pair.
    if (!llm.degradations.some((d) => d.prompt === 'mder/disambiguate')) expect(facts.wrongMerges).toEqual([]);
    // Descriptions: each is its own triple's (scripted, or the triple in words when a name was degraded).
    const docsWithError = new Set(
      [...kb.documents.iterateDocuments()].filter((d) => d.error !== null).map((d) => d.id),
    );
    for (const t of kb.graph.iterateTriples()) {
      const key = `${canonicalName(llm.resolveName(t.sourceName))}|${t.relation}|${canonicalName(llm.resolveName(t.targetName))}`;
      if (t.description === null) {
        // Left undescribed: recorded with its document.
        const docs = kb.documents.getChunks(t.chunkIds).map((c) => c.documentId);
        expect(
          docs.some((d) => docsWithError.has(d)),
          `undescribed ${key} recorded`,
        ).toBe(true);
        continue;
      }
      const own = [DESCRIPTIONS[key], plainDescription(t.sourceName, t.relation, t.targetName)];
      expect(
        own.some((o) => o !== undefined && content(t.description!).includes(o)),
        `description of ${key}: ${t.description}`,
      ).toBe(true);
    }
    // Summaries: each speaks of its own entity and of no other one.
    const heads = entities.map((e) => `${e.name} (${e.type}): `);
    for (const e of entities) {
      if (e.summary === null) continue;
      const head = `${e.name} (${e.type}): `;
      expect(content(e.summary), `summary of ${e.name}`).toContain(head);
      for (const other of heads)
        if (other !== head && !head.includes(other))
          expect(content(e.summary), `summary of ${e.name}`).not.toContain(other);
    }
    // What stays undone is recorded: unsummarised entities in the reduce failures.
    const unsummarised = entities.filter(
      (e) => e.summary === null && kb.graph.triplesOfEntity(e.id, 'both', 1).length > 0,
    );
    if (unsummarised.length > 0)
      expect(
        index.failures.some((f) => f.stage === 'reduce'),
        `unsummarised: ${unsummarised.map((e) => e.name).join(', ')}`,
      ).toBe(true);
    for (const c of kb.documents.iterateChunks())
      if (c.englishText === null) expect(docsWithError.has(c.documentId)).toBe(true);
    return { schema, llm, index, facts, answers };
  } finally {
    await dispose();
  }
}

const runs = new Map<number, Promise<SeedRun>>();
/** One run per seed, whichever test asks first: no test depends on another having run. */
const seedRun = (seed: number): Promise<SeedRun> => {
  if (!runs.has(seed)) runs.set(seed, runSeed(seed, modeOf(seed)));
  return runs.get(seed)!;
};
const cooperativeRuns = new Map<SchemaEnforcement, Promise<SeedRun>>();
/** The cooperative model: the same double with every degradation at rate 0 (the same limits), deterministic. */
const cooperative = (schema: SchemaEnforcement): Promise<SeedRun> => {
  if (!cooperativeRuns.has(schema)) cooperativeRuns.set(schema, runSeed(0, schema, NO_DEGRADATION));
  return cooperativeRuns.get(schema)!;
};

const SCRIPTED = scriptedFacts();
const namesPenelope = (a: Answer): boolean => PENELOPE.test(`${a.shortAnswer ?? ''} ${a.text}`);

interface Measured {
  /** Scripted facts this run kept, of all, and the ones missing with no recorded reason. */
  kept: number;
  total: number;
  unexplained: string[];
  /** Alias groups (multilingual entities) merged into one entity, of all, and the ones left apart with no recorded reason. */
  merged: number;
  groups: number;
  unexplainedMerges: string[];
  /** Strategies whose answer named Penelope, and the misses with no degradation during the ask or loss before it. */
  answered: StrategyName[];
  unexplainedAnswers: StrategyName[];
}

/** Measures a run against what a perfect model yields (the script): it needs no other run of the product, which may share a bug. */
function measure(run: SeedRun): Measured {
  const { facts, llm } = run;
  const m: Measured = {
    kept: 0,
    total: 0,
    unexplained: [],
    merged: 0,
    groups: 0,
    unexplainedMerges: [],
    answered: [],
    unexplainedAnswers: [],
  };
  let lostFacts = 0;
  for (const [file, scripted] of SCRIPTED) {
    for (const fact of scripted) {
      m.total++;
      if (facts.triplesByFile.get(file)?.has(fact)) m.kept++;
      else if (explainLoss(file, fact, facts, llm.degradations, llm.resolveName) === null)
        m.unexplained.push(`${file}: ${fact}`);
      else lostFacts++;
    }
  }
  const names = (d: Degradation): string[] =>
    Object.values((d.item ?? {}) as Record<string, unknown>).filter((v): v is string => typeof v === 'string');
  for (const [group, count] of facts.entitiesOf) {
    m.groups++;
    if (count === 1) {
      m.merged++;
      continue;
    }
    // Left apart: the model refused or lost a pair, or wrote one of the entity's names in a form no one put beside the others.
    const explained =
      facts.failedFiles.size > 0 ||
      llm.degradations.some(
        (d) =>
          d.prompt === 'mder/disambiguate' ||
          (d.prompt === 'mder/map' &&
            d.kind === 'foreignName' &&
            names(d).some((n) => canonicalName(llm.resolveName(n)) === group)),
      );
    if (!explained) m.unexplainedMerges.push(`${group}: ${count} entities`);
  }
  for (const strategy of STRATEGIES) {
    if (namesPenelope(run.answers[strategy].answer)) m.answered.push(strategy);
    else if (run.answers[strategy].degradations.length === 0 && lostFacts === 0 && facts.failedFiles.size === 0)
      m.unexplainedAnswers.push(strategy);
  }
  return m;
}

/**
 * Degradations each mode's seeds must make between them (step and kind), so that every check above
 * meets each of them in both modes. Enrich's and Disambiguate's reply schemas ask for exactly one
 * entry per item (as the grammar holds a real model to it), so a dropped entry is no longer
 * schema-valid; the content keys those entries repeat catch the entry that moved onto the wrong
 * item instead (swapItems).
 */
const DEGRADED_IN_EVERY_MODE = [
  'ingest/summarise reasoningPrefix',
  'mder/map dropItem',
  'mder/map swapItems',
  'mder/map foreignName',
  'mder/map typeSuffix',
  'mder/enrich swapItems',
  'mder/enrich repeatItem',
  'mder/enrich longString',
  'mder/enrich cutAtMaxTokens',
  'mder/reduce swapItems',
  'mder/disambiguate typeSuffix',
  'mder/disambiguate swapItems',
  'qa/dr-decompose placeholder',
  'qa/answer gluedCitation',
  'qa/answer emptyString',
  'qa/hyp-judge swapItems',
  'ingest/summarise sourceLanguage',
  'ingest/summarise runtimeError',
  'mder/map repetitionLoop',
  'mder/map fixedKeyDrift',
  'mder/enrich renumberedIds',
  'mder/enrich textUnderTwoIds',
  'mder/reduce renumberedIds',
  'mder/disambiguate flippedVerdict',
  'qa/dapt-subanswer flippedVerdict',
  'qa/hyp-judge inflatedScore',
  'qa/hyp-judge renumberedIds',
  // DaPT verifies only a regeneration, after its judge rejected both paths' answers on a question
  // whose translation survived: too few calls over 50 seeds for a wrong verdict at 0.05 to occur in
  // each run (none in CI's at 5f9954b); a flipped verification is tested in daptSmallModel.test.ts.
  // DR resolves only where the decomposition survived the translation (about one seed in three on
  // QaEmbedder: some 25 resolve calls at emptyReply 0.05, missed by 50 seeds one time in four), so
  // the empty single-item reply is required where every seed makes it: the final answer.
  'qa/answer emptyReply',
  'qa/answer runtimeError',
];
/**
 * Degradations the seeds of all modes run must make between them: steps whose replies hold no key
 * the grammar constrains, so a mode meets them as the other does. A question's translation is a
 * few calls a seed: at sourceLanguage 0.05, the 25 seeds of one mode can miss it (the grammar's
 * seeds did once Enrich asked a chunk's triples with one object in one call, which moved the seeded
 * draws of every later call).
 */
const DEGRADED_IN_SOME_MODE = ['qa/translate sourceLanguage'];
/**
 * What only one mode makes: under a grammar, a degraded content key comes out as another item's key
 * (the case that shifted Odysseus's summary onto Ithaca); without it, the degraded key itself.
 */
const DEGRADED_IN_MODE: Record<SchemaEnforcement, readonly string[]> = {
  grammar: ['mder/enrich wrongAllowedValue', 'mder/reduce wrongAllowedValue', 'mder/disambiguate wrongAllowedValue'],
  ignored: ['mder/enrich typeSuffix', 'mder/reduce typeSuffix'],
};

describe('the whole product with an uncooperative model', () => {
  it('runs at least the seeds its exact checks need', () => {
    expect(
      SEEDS,
      `POLYHOP_UNCOOPERATIVE_SEEDS=${process.env.POLYHOP_UNCOOPERATIVE_SEEDS}: at least ${MIN_SEEDS}`,
    ).toBeGreaterThanOrEqual(MIN_SEEDS);
    expect(
      FORCED_MODE === undefined || (MODES as readonly string[]).includes(FORCED_MODE),
      `POLYHOP_UNCOOPERATIVE_SCHEMA=${FORCED_MODE}: one of ${MODES.join(', ')}`,
    ).toBe(true);
  });

  it.each(MODES)(
    'the cooperative run (%s) finds every scripted fact, merge and answer (the reference the seeds are measured against)',
    async (schema) => {
      const base = await cooperative(schema);
      expect(base.llm.degradations.filter((d) => d.kind !== 'cutAtMaxTokens' && d.kind !== 'contextOverflow')).toEqual(
        [],
      );
      const sorted = (m: Map<string, Set<string>>) =>
        Object.fromEntries([...m].map(([file, facts]) => [file, [...facts].sort()]));
      expect(sorted(base.facts.triplesByFile)).toEqual(sorted(SCRIPTED));
      expect([...base.facts.entitiesOf.values()]).toEqual([1, 1, 1]);
      for (const strategy of STRATEGIES) expect(namesPenelope(base.answers[strategy].answer), strategy).toBe(true);
    },
  );

  it.each(Array.from({ length: SEEDS }, (_, i) => [i + 1, modeOf(i + 1)] as const))(
    'seed %i (%s): index, every strategy, export; nothing lost unrecorded',
    async (seed) => {
      const m = measure(await seedRun(seed));
      expect(m.unexplained, 'scripted facts missing with no recorded reason').toEqual([]);
      expect(m.unexplainedMerges, 'entities left unmerged with no recorded reason').toEqual([]);
      expect(m.unexplainedAnswers, 'strategies that lost the answer with no recorded reason').toEqual([]);
    },
  );

  it(
    `over ${Math.max(SEEDS, MIN_SEEDS)} seeds, in each mode: the yields stay above their minimum, and every step was degraded in every way it can`,
    { timeout: 1_800_000 },
    async () => {
      const all = await Promise.all(Array.from({ length: Math.max(SEEDS, MIN_SEEDS) }, (_, i) => seedRun(i + 1)));
      const modesRun = FORCED_MODE === undefined ? MODES : MODES.filter((m) => m === FORCED_MODE);
      expect(new Set(all.map((r) => r.schema))).toEqual(new Set(modesRun));
      const madeAll = new Set(all.flatMap((r) => r.llm.degradations.map((d) => `${d.prompt} ${d.kind}`)));
      expect(
        DEGRADED_IN_SOME_MODE.filter((m) => !madeAll.has(m)),
        'made by no mode',
      ).toEqual([]);
      for (const schema of modesRun) {
        const runs = all.filter((r) => r.schema === schema);
        const ms = runs.map(measure);
        const sum = (f: (m: Measured) => number): number => ms.reduce((n, m) => n + f(m), 0);
        const triples = sum((m) => m.kept) / sum((m) => m.total);
        const merged = sum((m) => m.merged) / sum((m) => m.groups);
        const answers = Object.fromEntries(
          STRATEGIES.map((s) => [s, ms.filter((m) => m.answered.includes(s)).length / ms.length]),
        ) as Record<StrategyName, number>;
        // The spread between seeds (sample standard deviation of a seed's share) is what MIN_YIELD's floors are sized by.
        const sd = (share: (m: Measured) => number): number => {
          const mean = sum(share) / ms.length;
          return Math.sqrt(ms.reduce((n, m) => n + (share(m) - mean) ** 2, 0) / (ms.length - 1));
        };
        console.log(
          `uncooperative yields over ${ms.length} ${schema} seeds: triples ${triples.toFixed(3)} (sd ${sd((m) => m.kept / m.total).toFixed(3)}), merged ${merged.toFixed(3)} (sd ${sd((m) => m.merged / m.groups).toFixed(3)}), answers ${JSON.stringify(answers)}`,
        );
        // Soft: one run prints and checks every mode and strategy, whichever fails first.
        const floor = MIN_YIELD[schema];
        expect.soft(triples, `${schema} triples`).toBeGreaterThanOrEqual(floor.triples);
        expect.soft(merged, `${schema} merged`).toBeGreaterThanOrEqual(floor.merged);
        for (const s of STRATEGIES)
          expect.soft(answers[s], `${schema} ${s} answers`).toBeGreaterThanOrEqual(floor.answers[s]);

        const made = new Set(runs.flatMap((r) => r.llm.degradations.map((d) => `${d.prompt} ${d.kind}`)));
        const expected = [...DEGRADED_IN_EVERY_MODE, ...DEGRADED_IN_MODE[schema]];
        expect([...made].filter((m) => expected.includes(m)).sort(), schema).toEqual([...expected].sort());
        expect(made.size, schema).toBeGreaterThan(40);
      }
    },
  );
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { askInBatches, type BatchRequest } from '../../../src-main/engine/mder/askInBatches.js';
import { confirmPairs } from '../../../src-main/engine/mder/confirmPairs.js';
import type {
  CandidatePair,
  DisambiguationEntity,
  DisambiguationStore,
} from '../../../src-main/engine/mder/disambiguationTypes.js';
import { IndexingJob } from '../../../src-main/engine/mder/IndexingJob.js';
import type { RenderedPrompt } from '../../../src-main/engine/models/Llm.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';
import { DEFAULT_RATES, UncooperativeLlm, type DegradationRates } from '../../support/UncooperativeLlm.js';
import { addCorpusDocument, CORPUS_FILES, CorpusEmbedder, corpusRules } from '../../support/corpusScript.js';
import { askedPairs } from '../../support/disambiguatePrompt.js';
import { openKb, prompts, snapshot } from './support/corpusKb.js';

/*
 * A local model under a grammar writes only the ids and content keys a batch's grammar allows
 * (UncooperativeLlm with `schema: 'grammar'`): every reply here is valid under the grammar, yet
 * an entry may carry another item's key and text under its id, one entry may be written under two
 * ids, or a key may be the neighbour's. The content check must catch each, ask the item alone,
 * and leave every text on its own item.
 */

const dir = mkdtempSync(join(tmpdir(), 'polyhop-grammar-batches-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every degradation off but `rates`. */
const only = (rates: Partial<DegradationRates>): DegradationRates => ({
  ...(Object.fromEntries(Object.keys(DEFAULT_RATES).map((k) => [k, 0])) as DegradationRates),
  ...rates,
});

const KEYS = ['Ithaca', 'Laertes', 'Icarius', 'Telemachus', 'Argos', 'Penelope'];
/** Each text names every key, so no text tells by its words which item it belongs to: only the key can. */
const TEXT = (key: string): string => `${key}, beside ${KEYS.filter((k) => k !== key).join(', ')}.`;
const lines = (keys: readonly string[]): string => keys.map((k, i) => `${i + 1}. ${k}`).join('\n');
const keysIn = (prompt: RenderedPrompt): string[] =>
  [...prompt.variables.items!.matchAll(/^\d+\. (.+)$/gm)].map((m) => m[1]!);

const request: BatchRequest<string> = {
  items: KEYS,
  render: (keys): RenderedPrompt => ({
    name: 'test/batch',
    version: '1',
    system: 'Write one sentence per item.',
    user: lines(keys),
    variables: { items: lines(keys) },
  }),
  listKey: 'texts',
  textKey: 'text',
  keyField: 'name',
  keyOf: (key) => key,
  maxTokens: (keys) => 64 * keys.length,
  maxItemsPerCall: KEYS.length,
};
const cooperative = () =>
  new ScriptedLlm(
    [
      {
        prompt: 'test/batch',
        reply: (_v, p) => ({ texts: keysIn(p).map((name, i) => ({ id: i + 1, name, text: TEXT(name) })) }),
      },
    ],
    { schema: 'grammar' },
  );

describe('askInBatches with a model held to the grammar', () => {
  it.each([
    ['ids shifted after a skipped item, each key still beside its own text', { renumberedIds: 1 }, 'renumberedIds'],
    ['one entry written again under a second id: two ids with one key', { textUnderTwoIds: 1 }, 'textUnderTwoIds'],
    ["a key swapped for the neighbour's, the text left on its own id", { typeSuffix: 0.4 }, 'wrongAllowedValue'],
    [
      "a swapped key, then the entry written again under the neighbour's id",
      { typeSuffix: 0.4, textUnderTwoIds: 1 },
      'wrongAllowedValue',
    ],
    ['a swapped key, then the ids shifted', { typeSuffix: 0.4, renumberedIds: 1 }, 'wrongAllowedValue'],
  ] as const)('%s: caught, asked again alone, every text on its own item (seeds 1-8)', async (_, rates, kind) => {
    let drifts = 0;
    for (let seed = 1; seed <= 8; seed++) {
      const inner = cooperative();
      const llm = new UncooperativeLlm(inner, { seed, schema: 'grammar', rates: only(rates) });
      const result = await askInBatches(llm, request);
      expect(result.texts, `seed ${seed}`).toEqual(KEYS.map(TEXT));
      expect(result.misses).toEqual([]);
      const [first, ...again] = inner.callsOf('test/batch').map((c) => keysIn(c.prompt));
      expect(first).toEqual(KEYS);
      for (const keys of again) expect(keys, `seed ${seed}`).toHaveLength(1);
      // The item each drift hit (the skipped one, the one overwritten, the one given another key) was asked alone.
      const hit = llm.degradations.filter((d) => d.kind === kind).map((d) => (d.item as { name: string }).name);
      for (const key of hit) expect(again.flat(), `seed ${seed}: ${key}`).toContain(key);
      drifts += hit.length;
    }
    expect(drifts).toBeGreaterThanOrEqual(8);
  });
});

describe('confirmPairs with a model held to the grammar', () => {
  const entity = (id: number, name: string, type: string): DisambiguationEntity => ({ id, name, type });
  const entities = [
    entity(1, 'Ulysses', 'Person'),
    entity(2, 'Odysseus', 'Person'),
    entity(3, 'Laertes', 'Person'),
    entity(4, 'Icarius', 'Person'),
    entity(5, 'Itaca', 'Place'),
    entity(6, 'Ithaca', 'Place'),
    entity(7, 'Argos', 'Place'),
    entity(8, 'Sparta', 'Place'),
    entity(9, 'Telemaco', 'Person'),
    entity(10, 'Telemachus', 'Person'),
  ];
  const SAME = new Set(['Ulysses~Odysseus', 'Itaca~Ithaca', 'Telemaco~Telemachus']);
  // Same and different pairs alternate, so a verdict under a neighbour's id is a wrong verdict.
  const pairs: CandidatePair[] = [
    [1, 2],
    [3, 4],
    [5, 6],
    [7, 8],
    [9, 10],
  ].map(([a, b]) => ({ a: entities[a! - 1]!, b: entities[b! - 1]!, evidence: ['similar name'] }));
  const store = {
    entity: (id: number) => entities[id - 1],
    entityNamed: (name: string) => entities.find((e) => e.name === name),
    context: (id: number) => `${entities[id - 1]!.name} is named in the text.`,
    factCount: () => 1,
  } as unknown as DisambiguationStore;
  const judge = () =>
    new ScriptedLlm(
      [
        {
          prompt: 'mder/disambiguate',
          reply: (v) => ({
            decisions: askedPairs(v).map(({ pair, a, b }) => {
              const same = SAME.has(`${a}~${b}`);
              return { pair, a, b, same, canonical: same ? b : '' };
            }),
          }),
        },
      ],
      { schema: 'grammar' },
    );
  const verdicts = (confirmed: { a: { name: string }; b: { name: string } }[]) =>
    confirmed.map((c) => `${c.a.name}~${c.b.name}`).sort();

  it("pair ids and entity names drifted onto a neighbour's are caught and asked again alone; the verdicts are the cooperative ones (seeds 1-10)", async () => {
    const expected = await confirmPairs(judge(), store, pairs, { prompts, concurrency: 1 });
    expect(verdicts(expected.confirmed)).toEqual([...SAME].sort());
    let drifts = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const inner = judge();
      // A field whose values the grammar lists (pair id, names A and B) degraded comes out as another of them.
      const llm = new UncooperativeLlm(inner, { seed, schema: 'grammar', rates: only({ emptyString: 0.25 }) });
      const result = await confirmPairs(llm, store, pairs, { prompts, concurrency: 1 });
      expect(verdicts(result.confirmed), `seed ${seed}`).toEqual(verdicts(expected.confirmed));
      expect(result.undecided, `seed ${seed}`).toEqual([]);
      const [first, ...again] = inner.callsOf('mder/disambiguate').map((c) => askedPairs(c.prompt.variables));
      expect(first).toHaveLength(pairs.length);
      for (const asked of again) expect(asked, `seed ${seed}`).toHaveLength(1);
      const aloneNames = again.flat().map((p) => `${p.a}~${p.b}`);
      for (const d of llm.degradations.filter((d) => d.kind === 'wrongAllowedValue')) {
        // The first call asks the pairs in order; the decision at index k is pair k's.
        const pair = pairs[Number(/^\$\.decisions\[(\d+)\]/.exec(d.at)![1])]!;
        expect(aloneNames, `seed ${seed}: ${d.at}`).toContain(`${pair.a.name}~${pair.b.name}`);
        drifts++;
      }
    }
    expect(drifts).toBeGreaterThanOrEqual(10);
  });
});

describe('indexing with a model held to the grammar', () => {
  it("descriptions and summaries are the cooperative run's wherever they were written, with ids and keys drifting in Enrich and Reduce (8 seeds)", async () => {
    const index = async (file: string, wrap?: (llm: ScriptedLlm) => UncooperativeLlm) => {
      const kb = openKb(join(dir, file));
      for (const f of CORPUS_FILES) addCorpusDocument(kb, f);
      const scripted = new ScriptedLlm(corpusRules(), { schema: 'grammar', contextTokens: 8192 });
      const llm = wrap ? wrap(scripted) : scripted;
      await new IndexingJob(kb, llm, {
        prompts,
        embedder: new CorpusEmbedder(),
        reduce: { copySingleFact: false },
      }).run();
      const content = snapshot(kb);
      kb.close();
      return { content, llm };
    };
    const reference = (await index('cooperative.sqlite')).content;
    const described = (triples: readonly string[]) =>
      new Map(triples.map((t) => t.split(' | ')).map(([s, r, o, d]) => [`${s} | ${r} | ${o}`, d]));
    const expectedTriples = described(reference.triples);
    const expectedSummaries = new Map(reference.entities.map((e) => [e.name, e.summary]));
    let drifts = 0;
    let written = 0;
    // Entries shifted or written twice keep each key beside its text; a key swapped for the neighbour's
    // parts the two, so it is drawn in other seeds: after a swap AND a shift, an entry can carry one
    // item's text under another's id with that item's key, which no content key can tell.
    const drift = (seed: number) =>
      seed % 2 === 1 ? only({ renumberedIds: 0.5, textUnderTwoIds: 0.3 }) : only({ typeSuffix: 0.3 });
    for (let seed = 1; seed <= 8; seed++) {
      const { content, llm } = await index(
        `seed-${seed}.sqlite`,
        (scripted) =>
          new UncooperativeLlm(scripted, {
            seed,
            schema: 'grammar',
            contextTokens: 8192,
            rates: drift(seed),
            degrade: (p) => p === 'mder/enrich' || p === 'mder/reduce',
          }),
      );
      const uncooperative = llm as UncooperativeLlm;
      drifts +=
        uncooperative.count('renumberedIds') +
        uncooperative.count('textUnderTwoIds') +
        uncooperative.count('wrongAllowedValue');
      for (const [triple, description] of described(content.triples)) {
        if (description === 'null') continue;
        written++;
        expect(description, `${triple} (seed ${seed})`).toBe(expectedTriples.get(triple));
      }
      for (const e of content.entities) {
        if (e.summary === null) continue;
        written++;
        expect(e.summary, `summary of ${e.name} (seed ${seed})`).toBe(expectedSummaries.get(e.name));
      }
    }
    expect(drifts).toBeGreaterThan(20);
    expect(written).toBeGreaterThan(8 * expectedTriples.size);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IndexingJob } from '../../../src-main/engine/mder/IndexingJob.js';
import { enrichChunk } from '../../../src-main/engine/mder/enrichChunk.js';
import { batchReplySchema } from '../../../src-main/engine/mder/askInBatches.js';
import { disambiguateReplySchema } from '../../../src-main/engine/mder/disambiguate.js';
import { zodJsonSchema } from '../../../src-main/engine/models/grammarSchema.js';
import { tripleText } from '../../../src-main/engine/mder/names.js';
import { ScriptedLlm, type ScriptRule } from '../../support/ScriptedLlm.js';
import { UncooperativeLlm } from '../../support/UncooperativeLlm.js';
import {
  addCorpusDocument,
  canonicalName,
  CORPUS_FILES,
  CorpusEmbedder,
  corpusRules,
  DESCRIPTIONS,
  NAME_VARIANTS,
} from '../../support/corpusScript.js';
import { openKb, prompts } from './support/corpusKb.js';

const dir = mkdtempSync(join(tmpdir(), 'polyhop-batches-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const triples = [
  { source: 'Odysseus', relation: 'KING_OF', target: 'Ithaca' },
  { source: 'Odysseus', relation: 'SON_OF', target: 'Laertes' },
  { source: 'Penelope', relation: 'DAUGHTER_OF', target: 'Icarius' },
];
const input = { previous: null, current: 'x', next: null, other: [], triples };
/** A model that describes each triple as its own words, with its relation and object as keys. */
const describingRule: ScriptRule = {
  prompt: 'mder/enrich',
  reply: (v) => ({
    descriptions: [...v.triples!.matchAll(/^(\d+)\. (.+) \| (\S+) \| (.+)$/gm)].map(([, id, s, r, t]) => ({
      id: Number(id),
      relation: r!,
      object: t!,
      description: `${s} ${r} ${t}.`,
    })),
  }),
};

describe('batched replies are matched by id and content key', () => {
  it('a model that skips item 2 but numbers on 1..n shifts no description onto the wrong triple', async () => {
    const four = [...triples, { source: 'Odysseus', relation: 'FATHER_OF', target: 'Telemachus' }];
    const llm = new ScriptedLlm([
      {
        prompt: 'mder/enrich',
        reply: (v) => {
          const lines = [...v.triples!.matchAll(/^(\d+)\. (.+) \| (\S+) \| (.+)$/gm)].map(([, , s, r, t]) => ({
            relation: r!,
            object: t!,
            description: `${s} ${r} ${t}.`,
          }));
          if (lines.length < 4) return { descriptions: lines.map((l, i) => ({ id: i + 1, ...l })) };
          // Item 2 left out, the rest numbered on from 2; the grammar wants four entries, so the last is written twice.
          const kept = [lines[0]!, lines[2]!, lines[3]!, lines[3]!];
          return { descriptions: kept.map((l, i) => ({ id: i + 1, ...l })) };
        },
      },
    ]);
    const r = await enrichChunk(llm, { ...input, triples: four }, { prompts });
    expect(r.descriptions).toEqual(four.map((t) => `${t.source} ${t.relation} ${t.target}.`));
    expect(r.misses).toEqual([]);
    // Item 2 (no entry of its own) is asked alone, and so are 3 and 4: item 4's key, Telemachus, came
    // under both their ids, and the entry whose id matches its key could carry the other's text.
    expect(
      llm
        .callsOf('mder/enrich')
        .slice(1)
        .map((c) => c.prompt.variables.triples),
    ).toEqual([
      '1. Odysseus | SON_OF | Laertes',
      '1. Penelope | DAUGHTER_OF | Icarius',
      '1. Odysseus | FATHER_OF | Telemachus',
    ]);
  });

  it('one text under two ids is kept only where it names the item; an id named twice with different texts is kept nowhere', async () => {
    const llm = new ScriptedLlm([
      {
        prompt: 'mder/enrich',
        when: (v) => v.triples!.includes('\n'),
        reply: () => ({
          descriptions: [
            { id: 1, relation: 'KING_OF', object: 'Ithaca', description: 'Odysseus was king of Ithaca.' },
            { id: 2, relation: 'SON_OF', object: 'Laertes', description: 'Odysseus was king of Ithaca.' },
            { id: 3, relation: 'DAUGHTER_OF', object: 'Icarius', description: 'Penelope was the daughter of Icarius.' },
          ],
        }),
      },
      {
        prompt: 'mder/enrich',
        when: (v) => v.triples!.includes('KING_OF'),
        reply: () => ({
          descriptions: [{ id: 1, relation: 'KING_OF', object: 'Ithaca', description: 'Odysseus was king of Ithaca.' }],
        }),
      },
      {
        prompt: 'mder/enrich',
        reply: () => ({
          descriptions: [
            { id: 1, relation: 'SON_OF', object: 'Laertes', description: 'Odysseus was the son of Laertes.' },
          ],
        }),
      },
    ]);
    const r = await enrichChunk(llm, input, { prompts });
    expect(r.descriptions).toEqual([
      'Odysseus was king of Ithaca.',
      'Odysseus was the son of Laertes.',
      'Penelope was the daughter of Icarius.',
    ]);
    expect(
      llm
        .callsOf('mder/enrich')
        .map((c) => c.prompt.variables.triples)
        .slice(1),
    ).toEqual(['1. Odysseus | SON_OF | Laertes']);

    const twice = new ScriptedLlm([
      {
        prompt: 'mder/enrich',
        when: (v) => v.triples!.includes('\n'),
        reply: () => ({
          descriptions: [
            { id: 1, relation: 'KING_OF', object: 'Ithaca', description: 'Odysseus was king of Ithaca.' },
            { id: 1, relation: 'KING_OF', object: 'Ithaca', description: 'Odysseus was the son of Laertes.' },
            { id: 3, relation: 'DAUGHTER_OF', object: 'Icarius', description: 'Penelope was the daughter of Icarius.' },
          ],
        }),
      },
      {
        prompt: 'mder/enrich',
        when: (v) => v.triples!.includes('KING_OF'),
        reply: () => ({
          descriptions: [{ id: 1, relation: 'KING_OF', object: 'Ithaca', description: 'Odysseus was king of Ithaca.' }],
        }),
      },
      { prompt: 'mder/enrich', reply: () => ({ descriptions: [] }) },
    ]);
    const t = await enrichChunk(twice, input, { prompts });
    expect(t.descriptions).toEqual(['Odysseus was king of Ithaca.', null, 'Penelope was the daughter of Icarius.']);
    expect(t.misses).toHaveLength(1);
    expect(t.misses[0]).toMatchObject({ index: 1, reason: expect.stringMatching(/schema/) });
  });

  it('triples that share their object share a call, told apart by their relation; a text moved between them is kept only where it names the relation', async () => {
    const shared = [
      { source: 'Telemachus', relation: 'SON_OF', target: 'Odysseus' },
      { source: 'Poseidon', relation: 'ANGRY_WITH', target: 'Odysseus' },
      { source: 'Penelope', relation: 'DAUGHTER_OF', target: 'Icarius' },
    ];
    const all =
      '1. Telemachus | SON_OF | Odysseus\n2. Poseidon | ANGRY_WITH | Odysseus\n3. Penelope | DAUGHTER_OF | Icarius';
    // A model that, among the triples of one object, writes the first one's text again under the
    // other ids (`text`), its whole entry (`entry`), or the entries of the first two swapped (`swap`).
    type Slip = 'text' | 'entry' | 'swap';
    type Entry = { relation: string; object: string; description: string };
    const slipped = (slip: Slip, entry: Entry, alike: Entry[]): Entry => {
      if (alike.length < 2) return entry;
      if (slip === 'swap') return alike.find((o) => o !== entry)!;
      if (entry === alike[0]) return entry;
      return slip === 'entry' ? alike[0]! : { ...entry, description: alike[0]!.description };
    };
    const slipping = (slip: Slip) =>
      new ScriptedLlm([
        {
          prompt: 'mder/enrich',
          reply: (v) => {
            const lines = [...v.triples!.matchAll(/^(\d+)\. (.+) \| (\S+) \| (.+)$/gm)].map(([, , s, r, t]) => ({
              relation: r!,
              object: t!,
              description: `${s} ${r} ${t}.`,
            }));
            return {
              descriptions: lines.map((l, i) => {
                const alike = lines.filter((o) => o.object === l.object);
                return { id: i + 1, ...slipped(slip, l, alike) };
              }),
            };
          },
        },
      ]);
    const honest = new ScriptedLlm([describingRule]);
    const r = await enrichChunk(honest, { ...input, triples: shared }, { prompts });
    expect(r.descriptions).toEqual(shared.map((t) => `${t.source} ${t.relation} ${t.target}.`));
    expect(honest.callsOf('mder/enrich').map((c) => c.prompt.variables.triples)).toEqual([all]);
    // The text alone moved: it names SON_OF, not ANGRY_WITH, so only Telemachus's is kept. The
    // whole entry moved: its key comes under two ids, so neither is trusted. Swapped: each entry's
    // relation is the other item's.
    const askedAgain: Record<Slip, string[]> = {
      text: ['1. Poseidon | ANGRY_WITH | Odysseus'],
      entry: ['1. Telemachus | SON_OF | Odysseus', '1. Poseidon | ANGRY_WITH | Odysseus'],
      swap: ['1. Telemachus | SON_OF | Odysseus', '1. Poseidon | ANGRY_WITH | Odysseus'],
    };
    for (const slip of ['text', 'entry', 'swap'] as const) {
      const llm = slipping(slip);
      const c = await enrichChunk(llm, { ...input, triples: shared }, { prompts });
      expect(c.descriptions, slip).toEqual(shared.map((t) => `${t.source} ${t.relation} ${t.target}.`));
      expect(llm.callsOf('mder/enrich').map((call) => call.prompt.variables.triples)).toEqual([
        all,
        ...askedAgain[slip],
      ]);
    }
  });

  it('triples alike in relation and object are asked in separate calls, so a text copied between them cannot pass its key', async () => {
    const twins = [
      { source: 'Telemachus', relation: 'SON_OF', target: 'Odysseus' },
      { source: 'Telegonus', relation: 'SON_OF', target: 'Odysseus' },
      { source: 'Penelope', relation: 'DAUGHTER_OF', target: 'Icarius' },
    ];
    const llm = new ScriptedLlm([describingRule]);
    const r = await enrichChunk(llm, { ...input, triples: twins }, { prompts });
    expect(r.descriptions).toEqual(twins.map((t) => `${t.source} ${t.relation} ${t.target}.`));
    expect(llm.callsOf('mder/enrich').map((c) => c.prompt.variables.triples)).toEqual([
      '1. Telemachus | SON_OF | Odysseus\n2. Penelope | DAUGHTER_OF | Icarius',
      '1. Telegonus | SON_OF | Odysseus',
    ]);
  });

  it('the triples left undescribed are listed in their order, also when a twin asked later misses before them', async () => {
    const twins = [
      { source: 'Telemachus', relation: 'SON_OF', target: 'Odysseus' },
      { source: 'Telegonus', relation: 'SON_OF', target: 'Odysseus' },
      { source: 'Penelope', relation: 'DAUGHTER_OF', target: 'Icarius' },
    ];
    // Telemachus's and Penelope's triples are asked together, Telegonus's (its relation and object
    // are Telemachus's) after them; the model writes no description (an empty one, which fails the schema) but Telemachus's.
    const llm = new ScriptedLlm([
      {
        prompt: 'mder/enrich',
        reply: (v) => ({
          descriptions: [...v.triples!.matchAll(/^(\d+)\. (.+) \| (\S+) \| (.+)$/gm)].map(([, id, s, r, t]) => ({
            id: Number(id),
            relation: r!,
            object: t!,
            description: s === 'Telemachus' ? `${s} ${r} ${t}.` : '',
          })),
        }),
      },
    ]);
    const r = await enrichChunk(llm, { ...input, triples: twins }, { prompts });
    expect(r.descriptions).toEqual(['Telemachus SON_OF Odysseus.', null, null]);
    expect(r.misses.map((m) => m.index)).toEqual([1, 2]);
  });

  it('the reply schema allows only the batch ids and content keys, and exactly one entry per item (grammar enums and counts)', async () => {
    const keys = ['Ithaca', 'Zoë "the Owl"', 'Icarius'];
    const grammar = JSON.stringify(
      zodJsonSchema(batchReplySchema(keys, 'descriptions', 'object', 'description')).grammar,
    );
    expect(grammar).toContain('"enum":[1,2,3]');
    expect(grammar).toContain(`"object":{"enum":${JSON.stringify(keys)}}`);
    expect(grammar).toContain('"maxItems":3');
    expect(grammar).toContain('"minItems":3');
    const qualified = JSON.stringify(
      zodJsonSchema(
        batchReplySchema(keys, 'descriptions', 'object', 'description', {
          field: 'relation',
          values: ['KING_OF', 'NAMED', 'DAUGHTER_OF'],
        }),
      ).grammar,
    );
    expect(qualified).toContain(
      `"relation":{"enum":["KING_OF","NAMED","DAUGHTER_OF"]},"object":{"enum":${JSON.stringify(keys)}}`,
    );
    const llm = new ScriptedLlm([
      {
        prompt: 'mder/enrich',
        reply: () => ({
          descriptions: [{ id: 9, relation: 'KING_OF', object: 'Ithaca', description: 'From another batch.' }],
        }),
      },
    ]);
    const r = await enrichChunk(llm, { ...input, triples: triples.slice(0, 1) }, { prompts });
    expect(r.descriptions).toEqual([null]);
    expect(r.misses[0]!.reason).toMatch(/schema/);
  });

  it("a Disambiguate reply's names are enums of the batch's A and B names; a name no grammar literal can hold leaves its key free", () => {
    const grammar = zodJsonSchema(
      disambiguateReplySchema(['P1', 'P2'], { a: ['Ulysses', 'Zoë'], b: ['Odysseus', 'Odysseus'] }),
    ).grammar;
    const entry = JSON.stringify(grammar);
    expect(entry).toContain('"pair":{"enum":["P1","P2"]}');
    expect(entry).toContain('"a":{"enum":["Ulysses","Zoë"]}');
    expect(entry).toContain('"b":{"enum":["Odysseus"]}');
    const free = JSON.stringify(
      zodJsonSchema(batchReplySchema(['Bell\u0007', 'Ithaca'], 's', 'name', 'summary')).grammar,
    );
    expect(free).toContain('"name":{"type":"string"}');
  });

  it('indexing with a model that drops, repeats and reorders batch items attaches no description or summary to the wrong item (12 seeds)', async () => {
    let described = 0;
    let total = 0;
    let degraded = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const kb = openKb(join(dir, `seed-${seed}.sqlite`));
      for (const f of CORPUS_FILES) addCorpusDocument(kb, f);
      const rules = corpusRules({ resolveName: (n) => llm.resolveName(n) });
      const llm = new UncooperativeLlm(new ScriptedLlm(rules), {
        seed,
        nameVariants: NAME_VARIANTS,
        contextTokens: 8192,
        rates: {
          swapItems: 0.6,
          repeatItem: 0.4,
          dropItem: 0.3,
          foreignName: 0,
          typeSuffix: 0,
          placeholder: 0,
          gluedCitation: 0,
          reasoningPrefix: 0,
          longString: 0,
          emptyString: 0,
          thinking: 0,
        },
        degrade: (p) => p === 'mder/enrich' || p === 'mder/reduce',
      });
      const result = await new IndexingJob(kb, llm, {
        prompts,
        embedder: new CorpusEmbedder(),
        reduce: { copySingleFact: false },
      }).run();
      degraded += llm.count('swapItems') + llm.count('repeatItem') + llm.count('dropItem');
      for (const t of kb.graph.iterateTriples()) {
        total++;
        if (t.description === null) continue;
        described++;
        expect(t.description, `${t.sourceName} ${t.relation} ${t.targetName} (seed ${seed})`).toBe(
          DESCRIPTIONS[`${canonicalName(t.sourceName)}|${t.relation}|${canonicalName(t.targetName)}`],
        );
      }
      for (const e of kb.graph.iterateEntities()) {
        if (e.summary === null) continue;
        expect(
          e.summary.startsWith(`${e.name} (${e.type}): `),
          `summary of ${e.name} (seed ${seed}): ${e.summary}`,
        ).toBe(true);
        // Every fact in the summary is a description of one of the entity's own triples.
        const own = kb.graph
          .triplesOfEntity(e.id, 'both', 1000)
          .map((t) => t.description ?? tripleText(t.sourceName, t.relation, t.targetName, null));
        const rest = own
          .sort((a, b) => b.length - a.length)
          .reduce((text, fact) => text.split(fact).join(''), e.summary.slice(`${e.name} (${e.type}): `.length));
        expect(rest.trim(), `facts of another entity in the summary of ${e.name} (seed ${seed})`).toBe('');
      }
      // What the model left out is recorded with its document (enrich) or in the run's failures (reduce).
      const undescribed = [...kb.graph.iterateTriples()].filter((t) => t.description === null).length;
      if (undescribed > 0) expect(result.failures.some((f) => f.stage === 'enrich')).toBe(true);
      kb.close();
    }
    expect(degraded).toBeGreaterThan(20);
    expect(described / total).toBeGreaterThan(0.8);
  });
});

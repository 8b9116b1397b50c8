import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { StrategyName } from '../../src-main/engine/api/contract.js';
import { KnowledgeBase } from '../../src-main/engine/kb/KnowledgeBase.js';
import { verbaliseTriple } from '../../src-main/engine/kb/verbaliseTriple.js';
import { PromptLibrary } from '../../src-main/engine/models/PromptLibrary.js';
import { ask, type QaContext } from '../../src-main/engine/qa/index.js';
import { NgramEmbedder } from '../support/NgramEmbedder.js';
import { ScriptedLlm, type ScriptRule } from '../support/ScriptedLlm.js';
import { seededRandom } from '../unit/kb/kbFixtures.js';
import { quantileOf } from '../../src-main/engine/base/quantile.js';

/**
 * Non-LLM time per question (retrieval, fusion, prompt rendering, bookkeeping) of every strategy,
 * with a zero-latency scripted model, on a synthetic KB of `--entities` entities (2 triples each,
 * one chunk per 10 entities, every other document in Italian with its English text, summaries,
 * every vector family and FTS index) built through the KnowledgeBase API. Questions alternate
 * English and Italian so DaPT's bilingual path, and its original-language corpus, run. Baselines measured in the same run: one query embedding + one entity-name KNN (the least
 * any KB strategy does), and the vector strategy. Goal: ≤ 100 ms p50 at 1M entities.
 *
 *   npm run bench qa                          (10k entities)
 *   npm run bench qa -- --entities 1000000    (1M; builds for several minutes)
 *   … --keep FILE                             (keeps the built KB in FILE and reuses it when present)
 */
export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: false,
    options: {
      entities: { type: 'string', default: '10000' },
      dim: { type: 'string', default: '256' },
      questions: { type: 'string', default: '30' },
      keep: { type: 'string' },
    },
  });
  const n = Number(values.entities);
  const dimension = Number(values.dim);
  const questions = Number(values.questions);
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-qa-bench-'));
  console.log(
    `${n.toLocaleString('en')} entities, ${(2 * n).toLocaleString('en')} triples, ${Math.ceil(n / 10).toLocaleString('en')} chunks, vectors float[${dimension}] (n-gram test embedder), ${questions} questions per strategy`,
  );
  try {
    const embedder = new NgramEmbedder(dimension);
    const names = entityNames(n);
    const keep = typeof values.keep === 'string' ? values.keep : undefined;
    let kb: KnowledgeBase;
    if (keep && existsSync(keep)) {
      kb = KnowledgeBase.open(keep);
      console.log(`  reusing ${keep}`);
    } else {
      const built = performance.now();
      kb = await buildKb(keep ?? join(dir, 'kb.sqlite'), names, embedder);
      console.log(`  built in ${((performance.now() - built) / 1000).toFixed(1)} s`);
    }

    const prompts = new PromptLibrary(join(import.meta.dirname, '../../prompts'));
    const llm = new ScriptedLlm(benchRules(), { recordCalls: false });
    const ctx: QaContext = { kb, llm, embedder, prompts };
    const random = seededRandom(5);
    const qs = Array.from({ length: questions + 3 }, (_, i) => {
      const name = names[Math.floor(random() * names.length)]!;
      return i % 2 === 0 ? `Who was the spouse of the ruler of ${name}?` : `Chi era il coniuge del sovrano di ${name}?`;
    });

    // Baseline: what any KB question costs at least.
    const base: number[] = [];
    for (const q of qs) {
      const t = performance.now();
      const [v] = await embedder.embed([q], { purpose: 'query' });
      kb.knn('entity_name', v!, 5);
      base.push(performance.now() - t);
    }

    const rows: [string, string, string, string][] = [['strategy', 'p50 ms', 'p95 ms', 'vs baseline p50']];
    const baseP50 = quantileOf(base.slice(3), 0.5);
    rows.push(['embed + 1 KNN (baseline)', fmt(baseP50), fmt(quantileOf(base.slice(3), 0.95)), '1.0×']);
    const breakdown: string[] = [];
    for (const strategy of ['vector', 'dr', 'hyp', 'dapt', 'llm-only'] as StrategyName[]) {
      const times: number[] = [];
      const steps = new Map<string, number>();
      for (const [i, q] of qs.entries()) {
        const t = performance.now();
        const answer = await ask(ctx, q, { strategy });
        if (i < 3) continue; // the first questions warm caches (bit codes, statements)
        times.push(performance.now() - t);
        for (const s of answer.trace) {
          const name = s.step.startsWith('solve') ? 'solve' : s.step;
          steps.set(name, (steps.get(name) ?? 0) + s.ms / questions);
        }
      }
      const p50 = quantileOf(times, 0.5);
      rows.push([strategy, fmt(p50), fmt(quantileOf(times, 0.95)), `${(p50 / baseP50).toFixed(1)}×`]);
      breakdown.push(`  ${strategy}: ${[...steps].map(([name, ms]) => `${name} ${fmt(ms)}`).join(', ')}`);
    }
    const widths = [0, 1, 2, 3].map((c) => Math.max(...rows.map((r) => r[c]!.length)));
    for (const row of rows) console.log(`  ${row.map((cell, c) => cell.padEnd(widths[c]!)).join('  ')}`);
    console.log('  mean ms per trace step:');
    for (const line of breakdown) console.log(line);
    kb.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const CLASSES = ['Person', 'City', 'Island', 'Organization', 'Event', 'Work', 'Place', 'Group', 'God', 'Ship'];
const RELATIONS = Array.from(
  { length: 50 },
  (_, i) =>
    ['RULED', 'MARRIED_TO', 'SON_OF', 'VISITED', 'FOUGHT', 'BUILT', 'WROTE', 'SAILED_TO', 'MET', 'LED'][i % 10]! +
    (i >= 10 ? `_${i}` : ''),
);

/** `n` distinct two-word names, the same for the same `n`. */
function entityNames(n: number): string[] {
  const random = seededRandom(3);
  const syllables = [
    'ka',
    'lo',
    'mi',
    'ne',
    'tu',
    'ra',
    'si',
    'po',
    've',
    'dan',
    'tor',
    'mel',
    'gri',
    'sha',
    'qu',
    'ex',
    'bel',
    'nor',
  ];
  const word = (): string => {
    const w = Array.from(
      { length: 2 + Math.floor(random() * 2) },
      () => syllables[Math.floor(random() * syllables.length)],
    ).join('');
    return w[0]!.toUpperCase() + w.slice(1);
  };
  const names: string[] = [];
  const seen = new Set<string>();
  while (names.length < n) {
    const name = `${word()} ${word()}`;
    if (!seen.has(name)) {
      seen.add(name);
      names.push(name);
    }
  }
  return names;
}

/** A synthetic MDER-shaped KB through the KnowledgeBase API, in batches as an indexing job writes. */
async function buildKb(file: string, names: readonly string[], embedder: NgramEmbedder): Promise<KnowledgeBase> {
  const kb = KnowledgeBase.open(file, { create: { name: 'bench', baseIri: 'urn:polyhop:kb:bench/' } });
  kb.setEmbedder(embedder.identity, embedder.dimension);
  const n = names.length;
  const batch = 10_000;
  const ids: number[] = new Array(n);
  const put = async (
    kind: 'chunk' | 'chunk_original' | 'entity_name' | 'entity_summary' | 'triple',
    rows: { id: number; text: string }[],
  ): Promise<void> => {
    const vectors = await embedder.embed(rows.map((r) => r.text));
    kb.putVectors(
      kind,
      rows.map((r, i) => ({ id: r.id, vector: vectors[i]! })),
    );
    if (kind === 'chunk' || kind === 'triple') kb.indexText(kind, rows);
  };
  for (let start = 0; start < n; start += batch) {
    const end = Math.min(n, start + batch);
    kb.transaction(() => {
      for (let i = start; i < end; i++) ids[i] = kb.upsertEntity(names[i]!, CLASSES[i % CLASSES.length]!);
    });
    await put(
      'entity_name',
      names.slice(start, end).map((text, j) => ({ id: ids[start + j]!, text })),
    );
  }
  const edges = (i: number): [number, string][] => [
    [(i * 7919 + 1) % n, RELATIONS[i % RELATIONS.length]!],
    [(i * 104_729 + 3) % n, RELATIONS[(i + 7) % RELATIONS.length]!],
  ];
  for (let start = 0; start < n; start += batch) {
    const end = Math.min(n, start + batch);
    const chunkRows: { id: number; text: string }[] = [];
    const originalRows: { id: number; text: string; italian: boolean }[] = [];
    const tripleRows: { id: number; text: string }[] = [];
    const summaryRows: { id: number; text: string }[] = [];
    kb.transaction(() => {
      for (let d = start; d < end; d += 100) {
        const italian = (d / 100) % 2 === 1;
        const doc = kb.addDocument({
          path: `/bench/${d}.txt`,
          title: `doc ${d}`,
          hash: `${d}`,
          mime: 'text/plain',
          size: 1,
          language: italian ? 'it' : 'en',
        });
        const facts = (c: number, say: (i: number, t: number, r: string) => string): string => {
          const first = d + c * 10;
          return Array.from({ length: Math.min(10, end - first) }, (_, j) => first + j)
            .flatMap((i) => edges(i).map(([t, r]) => `${say(i, t, r)}.`))
            .join(' ');
        };
        const count = Math.ceil(Math.min(100, end - d) / 10);
        const english = Array.from({ length: count }, (_, c) =>
          facts(c, (i, t, r) => verbaliseTriple(names[i]!, r, names[t]!)),
        );
        const texts = italian
          ? Array.from({ length: count }, (_, c) =>
              facts(c, (i, t, r) => `${names[i]!} ${italianRelation(r)} ${names[t]!}`),
            )
          : english;
        let offset = 0;
        const chunks = kb.replaceChunks(
          doc.id,
          texts.map((text, ord) => {
            const c = {
              ord,
              text,
              language: italian ? 'it' : 'en',
              startOffset: offset,
              endOffset: offset + text.length,
              page: null,
            };
            offset += text.length + 1;
            return c;
          }),
        );
        for (const [c, chunk] of chunks.entries()) {
          if (italian) kb.updateChunk(chunk.id, { englishText: english[c]! });
          chunkRows.push({ id: chunk.id, text: english[c]! });
          originalRows.push({ id: chunk.id, text: chunk.text, italian });
          for (let i = d + c * 10; i < Math.min(end, d + c * 10 + 10); i++) {
            const facts: string[] = [];
            for (const [t, r] of edges(i)) {
              const id = kb.addTriple({ sourceId: ids[i]!, relation: r, targetId: ids[t]!, chunkId: chunk.id });
              const description = `${verbaliseTriple(names[i]!, r, names[t]!)}, as the chronicle of ${names[t]!.split(' ')[0]} tells.`;
              kb.setTripleDescription(id, description);
              tripleRows.push({ id, text: verbaliseTriple(names[i]!, r, names[t]!) }); // the linear verbalisation alone, as planEmbedding indexes it
              facts.push(description);
            }
            const summary = `${names[i]} (${CLASSES[i % CLASSES.length]}): ${facts.join(' ')}`;
            kb.setEntitySummary(ids[i]!, summary);
            summaryRows.push({ id: ids[i]!, text: summary });
          }
        }
      }
    });
    await put('chunk', chunkRows);
    // As planEmbedding writes them: every chunk's text as written, original-language vectors for the Italian ones only.
    kb.indexText('chunk_original', originalRows);
    await put(
      'chunk_original',
      originalRows.filter((r) => r.italian),
    );
    await put('triple', tripleRows);
    await put('entity_summary', summaryRows);
    if ((start / batch) % 10 === 9) console.log(`  … ${end.toLocaleString('en')} entities`);
  }
  return kb;
}

const ITALIAN_VERBS: Record<string, string> = {
  RULED: 'governò',
  MARRIED_TO: 'sposò',
  SON_OF: 'era figlio di',
  VISITED: 'visitò',
  FOUGHT: 'combatté',
  BUILT: 'costruì',
  WROTE: 'scrisse a',
  SAILED_TO: 'navigò verso',
  MET: 'incontrò',
  LED: 'guidò',
};

/** The relation as an Italian verb ("RULED_12" → "governò (12)"). */
function italianRelation(relation: string): string {
  const [, verb, n] = /^(.*?)(?:_(\d+))?$/.exec(relation)!;
  return `${ITALIAN_VERBS[verb!] ?? verb!.toLowerCase()}${n ? ` (${n})` : ''}`;
}

/** A zero-latency model that answers every QA prompt plausibly from its variables. */
export function benchRules(): ScriptRule[] {
  const subject = (q: string): string => /(?:of|di) ([A-Z]\w+ [A-Z]\w+)\?$/.exec(q)?.[1] ?? q;
  const firstName = (text: string): string => /\] (?:\w+ · )?([A-Z]\w+ [A-Z]\w+)/.exec(text)?.[1] ?? 'unknown';
  return [
    {
      prompt: 'qa/translate',
      reply: (v) => ({ english: `Who was the spouse of the ruler of ${subject(v.question!)}?` }),
    },
    {
      prompt: 'qa/dr-decompose',
      reply: (v) => ({
        triples: [
          { subject: subject(v.question!), relation: 'RULED', object: '?X' },
          { subject: '?X', relation: 'MARRIED_TO', object: '?Y' },
        ],
      }),
    },
    // The first name the candidates' summaries mention besides the anchor (a value that is the anchor is asked again).
    {
      prompt: 'qa/dr-resolve',
      reply: (v) => ({
        reasoning: 'first candidate',
        value:
          [...v.candidates!.matchAll(/\b([A-Z][a-z]+ [A-Z][a-z]+)\b/g)]
            .map((m) => m[1]!)
            .find((name) => name !== v.anchor) ?? null,
        supporting: [1, 2],
      }),
    },
    {
      prompt: 'qa/hyp-paths',
      reply: (v) => ({
        paths: [
          {
            direction: 'forward',
            triples: [
              { subject: subject(v.question!), relation: 'ruled by', object: 'Person' },
              { subject: 'Person', relation: 'married to', object: 'Person' },
            ],
          },
          {
            direction: 'backward',
            triples: [
              { subject: 'Person', relation: 'married to', object: 'Person' },
              { subject: 'Person', relation: 'ruled', object: subject(v.question!) },
            ],
          },
        ],
      }),
    },
    {
      prompt: 'qa/hyp-judge',
      reply: (v) => ({
        scores: [...v.candidates!.matchAll(/^\[(\d+)\]/gm)].map((m) => ({
          id: Number(m[1]),
          directness: Number(m[1]) % 2 === 0 ? 2 : 0,
          entityClarity: 2,
          contextRelevance: 1,
        })),
      }),
    },
    {
      prompt: 'qa/dapt-decompose',
      reply: (v) => ({
        subQuestions: [
          { id: '1', question: `Who ruled ${subject(v.question!)}?`, dependsOn: [] },
          { id: '2', question: 'Who was the spouse of #1?', dependsOn: ['1'] },
        ],
      }),
    },
    { prompt: 'qa/dapt-subanswer', reply: (v) => ({ answer: firstName(v.passages!), found: true }) },
    { prompt: 'qa/dapt-judge', reply: () => ({ consistent: true, sufficient: true }) },
    { prompt: 'qa/dapt-regenerate', reply: (v) => ({ answer: firstName(v.passages!), found: true }) },
    { prompt: 'qa/dapt-verify', reply: () => ({ supported: true, sufficient: true }) },
    { prompt: 'qa/answer', reply: () => ({ answer: 'The answer [1].', short: 'The answer' }) },
    { prompt: 'qa/dapt-final', reply: () => ({ answer: 'The answer [1].', short: 'The answer' }) },
    { prompt: 'qa/llm-only', reply: () => ({ answer: 'An answer.', short: 'An answer' }) },
  ];
}

function fmt(ms: number): string {
  return ms < 10 ? ms.toFixed(2) : ms.toFixed(1);
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Parser, type Quad } from 'n3';
import { describe, expect, it } from 'vitest';
import type { Answer } from '../../../src-main/engine/api/contract.js';
import { mintIri } from '../../../src-main/engine/base/iri.js';
import { answerGraph, type AnswerGraphInput } from '../../../src-main/engine/qa/answerGraph.js';
import { repoRoot } from '../../support/tempEngine.js';

const BASE = 'https://kb.example/odyssey/';
const PH = 'https://polyhop.app/ontology#';
const PROV = 'http://www.w3.org/ns/prov#';
const TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

const answer: Answer = {
  question: 'Where was Penelope born?',
  questionLanguage: 'en',
  answerLanguage: 'en',
  strategy: 'dr',
  text: 'Penelope was born in Sparta [1].',
  shortAnswer: 'Sparta',
  retrievalOnly: false,
  evidence: [
    {
      kind: 'triple',
      id: 7,
      text: 'Penelope was born in Sparta.',
      label: 'Penelope —BORN_IN→ Sparta',
      score: 0.83,
      citations: [
        { documentId: 3, documentTitle: 'penelope.pdf', chunkId: 41, page: 12, startOffset: 1200, endOffset: 1388 },
      ],
    },
    { kind: 'summary', id: 2, text: 'Penelope, wife of Odysseus.', label: 'Penelope', score: 0.5, citations: [] },
  ],
  trace: [
    {
      step: 'rewrite',
      detail: { standalone: 'Where was Penelope born?' },
      llmCalls: 1,
      promptTokens: 90,
      completionTokens: 12,
      ms: 40,
    },
    { step: 'retrieve', detail: { kept: 2 }, llmCalls: 0, promptTokens: 0, completionTokens: 0, ms: 8 },
    { step: 'answer', detail: { cited: [1] }, llmCalls: 1, promptTokens: 700, completionTokens: 60, ms: 900 },
  ],
  usage: { llmCalls: 2, promptTokens: 790, completionTokens: 72, cacheHits: 1, ms: 948 },
  thread: { id: 5, title: 'Penelope', turnId: 9, position: 2 },
};

const kb = {
  graph: {
    getTriples: (ids: readonly number[]) =>
      ids.includes(7) ? [{ id: 7, sourceName: 'Penelope', relation: 'BORN_IN', targetName: 'Sparta' }] : [],
    getEntities: (ids: readonly number[]) => (ids.includes(2) ? [{ id: 2, name: 'Penelope' }] : []),
  },
  documents: {
    getDocument: (id: number) => (id === 3 ? { id: 3, hash: 'c0ffee', title: 'penelope.pdf' } : undefined),
  },
} as unknown as Parameters<typeof answerGraph>[0];

const input: AnswerGraphInput = {
  historyId: 12,
  answer,
  askedQuestion: 'and where was she born?',
  finishedAt: '2026-12-03T06:00:00.948Z',
  model: 'llama.cpp:qwen3-4b.gguf',
  embedder: 'transformers:multilingual-e5-small',
  settings: { strategyParams: { 'dr.k': 8 }, reasoning: { answer: 'on' } },
};

/** The graph's statements as N3.js reads them back from the N-Quads text. */
function parsed(): { quads: Quad[]; g: string; objects: (s: string, p: string) => string[] } {
  const graph = answerGraph(kb, BASE, input);
  const quads = new Parser({ format: 'N-Quads' }).parse(graph.nquads);
  const objects = (s: string, p: string) =>
    quads.filter((q) => q.subject.value === s && q.predicate.value === p).map((q) => q.object.value);
  return { quads, g: graph.graphIri, objects };
}

describe('an answer as RDF with PROV-O', () => {
  it('parses with N3.js, every statement in the answer’s own named graph, under the KB’s base IRI', () => {
    const { quads, g } = parsed();
    expect(g).toBe(`${BASE}answer/12`);
    expect(quads.length).toBeGreaterThan(50);
    expect(new Set(quads.map((q) => q.graph.value))).toEqual(new Set([g]));
    for (const q of quads) if (q.subject.termType === 'NamedNode') expect(q.subject.value.startsWith(BASE)).toBe(true);
  });

  it('holds the question as asked and answered, the thread turn, strategy, models, settings, time and cost', () => {
    const { g, objects } = parsed();
    expect(objects(g, TYPE)).toEqual(expect.arrayContaining([`${PH}Answer`, `${PROV}Entity`]));
    expect(objects(g, `${PH}hasText`)).toEqual([answer.text]);
    expect(objects(g, `${PH}hasShortAnswer`)).toEqual(['Sparta']);
    const [question] = objects(g, `${PH}answers`);
    expect(objects(question!, `${PH}hasText`)).toEqual(['and where was she born?']);
    expect(objects(question!, `${PH}hasStandaloneText`)).toEqual([answer.question]);
    expect(objects(g, `${PH}inThread`)).toEqual([`${BASE}thread/5`]);
    expect(objects(g, `${PH}hasPosition`)).toEqual(['2']);
    const [run] = objects(g, `${PROV}wasGeneratedBy`);
    expect(objects(run!, TYPE)).toContain(`${PROV}Activity`);
    expect(objects(run!, `${PROV}used`)).toContain(question);
    expect(objects(run!, `${PH}hasStrategy`)).toEqual(['dr']);
    expect(JSON.parse(objects(run!, `${PH}hasSettings`)[0]!)).toEqual(input.settings);
    const agents = objects(run!, `${PROV}wasAssociatedWith`);
    expect(agents.flatMap((a) => objects(a, 'http://www.w3.org/2000/01/rdf-schema#label')).sort()).toEqual(
      [input.model, input.embedder].sort(),
    );
    expect(objects(g, `${PROV}wasAttributedTo`)).toEqual([mintIri(BASE, ['model', input.model!])]);
    expect(objects(run!, `${PROV}startedAtTime`)).toEqual(['2026-12-03T06:00:00.000Z']);
    expect(objects(run!, `${PROV}endedAtTime`)).toEqual([input.finishedAt]);
    expect(objects(g, `${PROV}generatedAtTime`)).toEqual([input.finishedAt]);
    expect(objects(run!, `${PH}hasPromptTokens`)).toEqual(['790']);
    expect(objects(run!, `${PH}hasCompletionTokens`)).toEqual(['72']);
    expect(objects(run!, `${PH}hasLlmCalls`)).toEqual(['2']);
    expect(objects(run!, `${PH}hasCacheHits`)).toEqual(['1']);
  });

  it('holds each trace step as an activity in order, informed by the one before', () => {
    const { g, objects } = parsed();
    const [run] = objects(g, `${PROV}wasGeneratedBy`);
    const steps = objects(run!, `${PH}hasStep`).sort(
      (a, b) => Number(objects(a, `${PH}hasPosition`)[0]) - Number(objects(b, `${PH}hasPosition`)[0]),
    );
    expect(steps.map((s) => objects(s, `${PH}hasName`)[0])).toEqual(['rewrite', 'retrieve', 'answer']);
    expect(steps.map((s) => objects(s, `${PH}hasPromptTokens`)[0])).toEqual(['90', '0', '700']);
    expect(JSON.parse(objects(steps[2]!, `${PH}hasDetail`)[0]!)).toEqual({ cited: [1] });
    for (const s of steps) expect(objects(s, TYPE)).toContain(`${PROV}Activity`);
    expect(objects(steps[1]!, `${PROV}wasInformedBy`)).toEqual([steps[0]]);
    expect(objects(steps[2]!, `${PROV}wasInformedBy`)).toEqual([steps[1]]);
  });

  it('holds the triples and passages used: the KB nodes, document hash, page and character offsets', () => {
    const { g, objects } = parsed();
    const [run] = objects(g, `${PROV}wasGeneratedBy`);
    const evidence = objects(run!, `${PROV}used`).filter((e) => e.includes('/evidence/'));
    expect(evidence).toHaveLength(2);
    const [triple, summary] = evidence.sort();
    expect(objects(triple!, `${PROV}wasDerivedFrom`)).toEqual([
      mintIri(BASE, ['triple', 'Penelope', 'BORN_IN', 'Sparta']),
    ]);
    expect(objects(summary!, `${PROV}wasDerivedFrom`)).toEqual([`${BASE}entity/Penelope`]);
    expect(objects(triple!, `${PH}hasScore`)).toEqual(['0.83']);
    const [citation] = objects(triple!, `${PH}hasCitation`);
    expect(objects(citation!, `${PROV}wasQuotedFrom`)).toEqual([`${BASE}document/3`]);
    expect(objects(citation!, `${PH}citesDocumentHash`)).toEqual(['c0ffee']);
    expect(objects(citation!, `${PH}citesPage`)).toEqual(['12']);
    expect(objects(citation!, `${PH}citesStartOffset`)).toEqual(['1200']);
    expect(objects(citation!, `${PH}citesEndOffset`)).toEqual(['1388']);
    expect(objects(g, `${PROV}wasDerivedFrom`)).toEqual([`${BASE}document/3`]);
    expect(answerGraph(kb, BASE, input).sources).toEqual([
      { documentId: 3, documentHash: 'c0ffee', documentTitle: 'penelope.pdf' },
    ]);
  });

  it('states a fact once when two citations name one document: each N-Quads line is written once', () => {
    const [triple, summary] = answer.evidence;
    const secondPassage = { ...triple!.citations[0]!, chunkId: 42, startOffset: 1400, endOffset: 1500 };
    const twice = { ...input, answer: { ...answer, evidence: [triple!, { ...summary!, citations: [secondPassage] }] } };
    const graph = answerGraph(kb, BASE, twice);
    const lines = graph.nquads.trim().split('\n');
    expect(new Set(lines).size).toBe(lines.length);
    expect(graph.quads).toHaveLength(lines.length);
    const derived = lines.filter((l) => l.startsWith(`<${graph.graphIri}> <${PROV}wasDerivedFrom>`));
    expect(derived).toEqual([`<${graph.graphIri}> <${PROV}wasDerivedFrom> <${BASE}document/3> <${graph.graphIri}> .`]);
  });

  it('uses only Polyhop terms the ontology declares', () => {
    const ontology = new Parser().parse(readFileSync(join(repoRoot, 'resources', 'ontology.ttl'), 'utf8'));
    const declared = new Set(ontology.filter((q) => q.predicate.value === TYPE).map((q) => q.subject.value));
    const { quads } = parsed();
    const used = new Set(
      quads.flatMap((q) => [q.predicate.value, ...(q.predicate.value === TYPE ? [q.object.value] : [])]),
    );
    const undeclared = [...used].filter((term) => term.startsWith(PH) && !declared.has(term));
    expect(undeclared).toEqual([]);
  });
});

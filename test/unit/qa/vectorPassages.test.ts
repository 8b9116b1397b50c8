import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src-main/engine/base/hash.js';
import { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import { ingestPending } from '../../../src-main/engine/mder/ingestPending.js';
import { planEmbedding } from '../../../src-main/engine/mder/planEmbedding.js';
import { cosine } from '../../../src-main/engine/models/Embedder.js';
import { PromptLibrary } from '../../../src-main/engine/models/PromptLibrary.js';
import { ask, resolveQaSettings, type QaContext } from '../../../src-main/engine/qa/index.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';
import { addCorpusDocument, CORPUS_DIR, CORPUS_FILES } from '../../support/corpusScript.js';
import { QaEmbedder, qaRules, WIFE_OF_KING } from './support/qaScript.js';

const prompts = new PromptLibrary(join(import.meta.dirname, '../../../prompts'));
/** Small passages, so the corpus has more of them than the baseline retrieves. */
const PASSAGES = { chunkTokens: 24, overlapTokens: 6 };
let dir: string;
let kb: KnowledgeBase;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'polyhop-vector-'));
  kb = KnowledgeBase.open(join(dir, 'kb.sqlite'), {
    create: { name: 'odyssey', baseIri: 'https://example.org/odyssey/' },
  });
  for (const file of CORPUS_FILES) {
    const path = join(CORPUS_DIR, file);
    const bytes = readFileSync(path);
    kb.documents.addDocument({
      path,
      title: file,
      hash: sha256Hex(bytes),
      mime: file.endsWith('.md') ? 'text/markdown' : 'text/plain',
      size: bytes.length,
    });
  }
  const embedder = new QaEmbedder();
  const result = await ingestPending(kb, { embedder, passages: PASSAGES });
  expect(result.failed).toEqual([]);
  await planEmbedding(kb, embedder).run(() => undefined);
});

afterAll(() => {
  kb?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function context(overrides: Record<string, number> = {}, onKb: KnowledgeBase = kb): QaContext {
  return {
    kb: onKb,
    llm: new ScriptedLlm(qaRules()),
    embedder: new QaEmbedder(),
    prompts,
    settings: resolveQaSettings(overrides),
  };
}

const retrieveStep = (trace: { step: string; detail: unknown }[]) =>
  trace.find((s) => s.step === 'retrieve')?.detail as {
    family: string;
    retrieved: { id: number }[];
    documentsWithoutPassages?: number;
  };

describe('ingest cuts fixed-size passages next to the semantic chunks', () => {
  it('stores overlapping passages that tile each document, each with its vector', () => {
    const passages = [...kb.documents.iterateDocuments()].flatMap((d) => kb.documents.passagesOfDocument(d.id));
    expect(passages.length).toBeGreaterThan(10);
    expect(kb.stats().vectors.passage).toBe(passages.length);
    expect(kb.vectors.missingVectors('passage')).toEqual([]);
    for (const doc of kb.documents.iterateDocuments()) {
      const own = kb.documents.passagesOfDocument(doc.id);
      const chunks = kb.documents.chunksOfDocument(doc.id);
      expect(own[0]!.startOffset).toBe(chunks[0]!.startOffset);
      expect(own.at(-1)!.endOffset).toBe(chunks.at(-1)!.endOffset);
      for (const [i, p] of own.entries()) {
        expect(p.ord).toBe(i);
        if (i > 0) expect(p.startOffset).toBeLessThan(own[i - 1]!.endOffset); // overlap
        // Cited chunks: every chunk of the document that overlaps the passage, in order, the first holding its start.
        const overlapping = chunks
          .filter((c) => c.startOffset < p.endOffset && c.endOffset > p.startOffset)
          .map((c) => c.id);
        expect(p.chunkIds).toEqual(overlapping);
        const first = chunks.find((c) => c.id === p.chunkIds[0])!;
        expect(first.startOffset <= p.startOffset && p.startOffset < first.endOffset).toBe(true);
      }
    }
  });
});

describe('vector baseline', () => {
  it('ranks fixed-size passages by similarity to the question and keeps the top k', async () => {
    const k = 4;
    const answer = await ask(context({ 'vector.topK': k }), WIFE_OF_KING.en, { strategy: 'vector' });
    const step = retrieveStep(answer.trace);
    expect(step.family).toMatch(/^passage/);
    expect(step.documentsWithoutPassages).toBeUndefined();
    // Exact ranking of every passage, computed here from the stored texts.
    const all = [...kb.documents.iterateDocuments()].flatMap((d) => kb.documents.passagesOfDocument(d.id));
    const [q] = await new QaEmbedder().embed([WIFE_OF_KING.en], { purpose: 'query' });
    const vectors = await new QaEmbedder().embed(all.map((p) => p.text));
    const exact = all.map((p, i) => ({ id: p.id, score: cosine(q!, vectors[i]!) })).sort((a, b) => b.score - a.score);
    expect(step.retrieved.map((r) => r.id)).toEqual(exact.slice(0, k).map((r) => r.id));
    expect(answer.evidence.map((e) => e.text)).toEqual(
      kb.documents.getPassages(exact.slice(0, k).map((r) => r.id)).map((p) => p.text),
    );
  });

  it('answers from the passages and cites the document text they cover', async () => {
    const answer = await ask(context(), WIFE_OF_KING.en, { strategy: 'vector' });
    expect(answer.text).toMatch(/Penelope \[\d+\]/);
    expect(answer.evidence.length).toBeGreaterThan(0);
    expect(answer.evidence.length).toBeLessThanOrEqual(10);
    const ids = retrieveStep(answer.trace).retrieved.map((r) => r.id);
    const passages = kb.documents.getPassages(ids);
    for (const [i, evidence] of answer.evidence.entries()) {
      const passage = passages[i]!;
      expect(evidence.kind).toBe('chunk');
      expect(evidence.label).toMatch(/ · passage \d+$/);
      expect(evidence.text).toBe(passage.text);
      expect(evidence.citations.length).toBeGreaterThan(0);
      expect(evidence.citations.map((c) => c.chunkId)).toEqual(passage.chunkIds.slice(0, 5));
      for (const c of evidence.citations) {
        expect(c.documentId).toBe(passage.documentId);
        expect(c.startOffset < passage.endOffset && c.endOffset > passage.startOffset).toBe(true);
      }
      expect(evidence.citations[0]!.startOffset).toBeLessThanOrEqual(passage.startOffset);
    }
  });

  it('falls back to semantic chunks on a KB ingested before passages, and says so', async () => {
    const oldDir = mkdtempSync(join(tmpdir(), 'polyhop-vector-old-'));
    const old = KnowledgeBase.open(join(oldDir, 'kb.sqlite'), {
      create: { name: 'old', baseIri: 'https://example.org/old/' },
    });
    try {
      const embedder = new QaEmbedder();
      old.vectors.setEmbedder(embedder.identity, embedder.dimension);
      for (const file of CORPUS_FILES) addCorpusDocument(old, file);
      const chunks = [...old.documents.iterateChunks()];
      const vectors = await embedder.embed(chunks.map((c) => c.text));
      old.vectors.putVectors(
        'chunk',
        chunks.map((c, i) => ({ id: c.id, vector: vectors[i]! })),
      );
      expect(old.documents.countDocumentsWithoutPassages()).toBe(CORPUS_FILES.length);

      const answer = await ask(context({}, old), WIFE_OF_KING.en, { strategy: 'vector' });
      expect(retrieveStep(answer.trace).family).toMatch(/^chunk .*before fixed-size passages existed/);
      expect(answer.evidence.length).toBeGreaterThan(0);
      expect(answer.evidence.every((e) => e.citations.length === 1 && !e.label.includes('passage'))).toBe(true);

      // Once one document has passages they are used, and the trace counts the documents without.
      const [first] = [...old.documents.iterateDocuments()];
      const [passage] = old.documents.replacePassages(first!.id, [
        {
          ord: 0,
          text: chunks[0]!.text,
          language: 'en',
          startOffset: chunks[0]!.startOffset,
          endOffset: chunks[0]!.endOffset,
          page: null,
        },
      ]);
      old.vectors.putVectors('passage', [{ id: passage!.id, vector: vectors[0]! }]);
      const mixed = await ask(context({}, old), WIFE_OF_KING.en, { strategy: 'vector' });
      expect(retrieveStep(mixed.trace)).toMatchObject({
        family: expect.stringMatching(/^passage/),
        documentsWithoutPassages: CORPUS_FILES.length - 1,
      });
    } finally {
      old.close();
      rmSync(oldDir, { recursive: true, force: true });
    }
  });
});

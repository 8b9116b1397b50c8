import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRATEGIES } from '../../src-main/engine/api/contract.js';
import { KnowledgeBase } from '../../src-main/engine/kb/index.js';
import { IndexingJob } from '../../src-main/engine/mder/IndexingJob.js';
import { LlamaCppLlm } from '../../src-main/engine/models/LlamaCppLlm.js';
import { PromptLibrary } from '../../src-main/engine/models/PromptLibrary.js';
import { ask, resolveQaSettings, type QaContext } from '../../src-main/engine/qa/index.js';
import { tinyLlamaPath } from '../fixtures/tinyLlama.js';
import { ScriptedLlm } from '../support/ScriptedLlm.js';
import { addCorpusDocument, CORPUS_FILES, CorpusEmbedder, corpusRules } from '../support/corpusScript.js';

// The KB is indexed with the scripted model (indexing has its own runtime tests); the questions
// are answered by the real tiny random-weight GGUF. Its output is gibberish, so what is checked
// is that every strategy runs end to end through real grammars, streaming and accounting, and
// degrades (invalid structured replies, empty retrieval) instead of failing.
const prompts = new PromptLibrary(join(import.meta.dirname, '../../prompts'));
let dir: string;
let ctx: QaContext;
let llm: LlamaCppLlm;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'polyhop-qa-runtime-'));
  const kb = KnowledgeBase.open(join(dir, 'kb.sqlite'), {
    create: { name: 'odyssey', baseIri: 'https://example.org/odyssey/' },
  });
  for (const file of CORPUS_FILES) addCorpusDocument(kb, file);
  const embedder = new CorpusEmbedder();
  await new IndexingJob(kb, new ScriptedLlm(corpusRules()), { prompts, embedder }).run();
  // threads 1: more threads than free cores makes llama.cpp far slower on shared machines.
  llm = await LlamaCppLlm.create({ path: await tinyLlamaPath(), threads: 1, contextSize: 2048, sequences: 2 });
  ctx = {
    kb,
    llm,
    embedder,
    prompts,
    settings: resolveQaSettings({
      'shared.stepMaxTokens': 24,
      'shared.answerMaxTokens': 12,
      'hyp.maxCandidates': 10,
      'shared.evidenceMaxTokens': 800,
    }),
  };
});

afterAll(async () => {
  await llm?.dispose();
  (ctx?.kb as KnowledgeBase | undefined)?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('every strategy on the tiny GGUF', () => {
  it.each(STRATEGIES)('%s answers end to end', async (strategy) => {
    let streamed = '';
    const answer = await ask(ctx, 'Chi era la moglie del re di Itaca?', {
      strategy,
      onTextChunk: (t) => (streamed += t),
      onTextRestart: () => (streamed = ''),
    });
    expect(answer.strategy).toBe(strategy);
    expect(answer.retrievalOnly).toBe(false);
    expect(typeof answer.text).toBe('string');
    expect(streamed.trim()).toBe(answer.text);
    expect(answer.usage.llmCalls).toBeGreaterThan(0);
    expect(answer.usage.completionTokens).toBeGreaterThan(0);
    expect(answer.trace.reduce((n, s) => n + s.llmCalls, 0)).toBe(answer.usage.llmCalls);
    expect(answer.trace.at(-1)!.step).toBe('answer');
  });
});

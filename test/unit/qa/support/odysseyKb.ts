import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { KnowledgeBase } from '../../../../src-main/engine/kb/index.js';
import { IndexingJob } from '../../../../src-main/engine/mder/IndexingJob.js';
import { PromptLibrary } from '../../../../src-main/engine/models/PromptLibrary.js';
import { ScriptedLlm } from '../../../support/ScriptedLlm.js';
import { addCorpusDocument, CORPUS_FILES, corpusRules } from '../../../support/corpusScript.js';
import { QaEmbedder } from './qaScript.js';

export const prompts = new PromptLibrary(join(import.meta.dirname, '../../../../prompts'));

/** The Odysseus corpus indexed by the real MDER pipeline (scripted model), as the app would; `close` removes it. */
export async function indexOdyssey(): Promise<{ kb: KnowledgeBase; close: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-qa-'));
  const kb = KnowledgeBase.open(join(dir, 'kb.sqlite'), {
    create: { name: 'odyssey', baseIri: 'https://example.org/odyssey/' },
  });
  for (const file of CORPUS_FILES) addCorpusDocument(kb, file);
  const result = await new IndexingJob(kb, new ScriptedLlm(corpusRules()), {
    prompts,
    embedder: new QaEmbedder(),
  }).run();
  expect(result.failures).toEqual([]);
  return {
    kb,
    close: () => {
      kb.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import { ask, resolveQaSettings } from '../../../src-main/engine/qa/index.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';
import { buildItacaKb, QUESTION, WEAVING } from './support/itacaCorpus.js';
import { prompts } from './support/odysseyKb.js';

/**
 * The English chunk index holds English text only (DaPT's English corpus); retrieval-only answers
 * also rank the chunks as written (original-language vectors, BM25 over the text) for a question in
 * another language, so an Italian question finds the Italian chunk its wording matches.
 */
describe('retrieval-only answers over the two chunk corpora', () => {
  let dir: string;
  let kb: KnowledgeBase;
  const embedder = new NgramEmbedder(512);
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'polyhop-ro-corpora-'));
    ({ kb } = await buildItacaKb(join(dir, 'kb.sqlite'), embedder));
  });
  afterAll(() => {
    kb.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rank the chunks as written for a non-English question', async () => {
    // Fewer passages than the corpus has chunks, so ranking decides (the paper's k = 3 for DaPT).
    const settings = resolveQaSettings({ 'shared.retrievalOnlyK': 3 });
    const answer = await ask({ kb, llm: null, embedder, prompts, settings }, QUESTION.it, { strategy: 'vector' });
    expect(answer.evidence.map((e) => e.text)).toContain(WEAVING.it);
    // The answer text: a heading, a blank line, then the evidence numbered as ranked.
    const [first] = answer.evidence;
    expect(
      answer.text.startsWith(
        'Retrieval only (no answer was generated): ranked evidence for the question.\n\n' +
          `1. [${first!.kind}] ${first!.label}: ${first!.text}\n2. `,
      ),
    ).toBe(true);
  });
});

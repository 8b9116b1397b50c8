import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexingJob } from '../../../src-main/engine/mder/index.js';
import { ScriptedLlm, type ScriptRule } from '../../support/ScriptedLlm.js';
import { fence } from '../../../src-main/engine/base/fence.js';
import {
  addCorpusDocument,
  CHUNK_SCRIPT,
  CORPUS_FILES,
  CorpusEmbedder,
  corpusParagraphs,
  corpusRules,
} from '../../support/corpusScript.js';
import { openKb, prompts, snapshot } from './support/corpusKb.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'polyhop-mder-retry-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The corpus script, except that greedy decoding of one prompt (where `when` holds) goes wrong the
 * way a small model's does: `bad` is what it writes at temperature below 0.5, whatever the seed
 * (the same greedy call gives the same reply every time); a sample at 0.5 writes the scripted reply.
 */
function greedyGoesWrong(prompt: string, when: (v: Readonly<Record<string, string>>) => boolean, bad: unknown) {
  const rules = corpusRules();
  const wrong: ScriptRule = {
    prompt,
    when,
    reply: (v, p, sampling) => {
      if ((sampling?.temperature ?? 0) < 0.5) return bad;
      return rules.find((r) => r.prompt === prompt && (!r.when || r.when(v)))!.reply(v, p, sampling);
    },
  };
  return new ScriptedLlm([wrong, ...rules]);
}

/** The Italian chunk about Penelope: its text, and the English summary Preprocess writes of it. */
const PENELOPE = {
  text: corpusParagraphs('ulisse.it.txt')[1]!.text,
  summary: CHUNK_SCRIPT['ulisse.it.txt'][1]!.summary,
};

async function indexCorpus(llm: ScriptedLlm) {
  const kb = openKb(join(dir, 'kb.sqlite'));
  for (const f of CORPUS_FILES) addCorpusDocument(kb, f);
  const result = await new IndexingJob(kb, llm, { prompts, embedder: new CorpusEmbedder() }).run();
  return { kb, result };
}

describe('failed Map and Preprocess units are asked again within the run', () => {
  it('Preprocess: a chunk whose greedy summary is empty is asked once more, sampled, and its document is indexed in the same run', async () => {
    const llm = greedyGoesWrong('ingest/summarise', (v) => v.chunk === fence(PENELOPE.text), { text: '' });
    const { kb, result } = await indexCorpus(llm);
    expect(result.failures).toEqual([]);
    expect(result.stages.preprocess).toMatchObject({ units: 7, failed: 0 });
    const asked = llm.callsOf('ingest/summarise').filter((c) => c.prompt.variables.chunk === fence(PENELOPE.text));
    // Greedy first; then, at the end of the stage, another sampling.
    expect(asked).toHaveLength(2);
    expect(asked[0]!.outcome).toBe('ok');
    const snap = snapshot(kb);
    expect(snap.documents.every((d) => d.status === 'indexed')).toBe(true);
    expect(snap.chunks.find((c) => c.text === PENELOPE.text)!.englishText).toBe(PENELOPE.summary);
    expect(snap.triples.some((t) => t.startsWith('Penelope | WOVE | Shroud'))).toBe(true);
    kb.close();
  });

  it('Map: a chunk whose greedy reply leaves out a required key is asked once more, sampled, and its triples are written in the same run', async () => {
    const llm = greedyGoesWrong('mder/map', (v) => v.chunk === fence(PENELOPE.summary), {
      triples: [{ subject: 'Penelope', subjectType: 'Person', object: 'Shroud', objectType: 'Object' }],
    });
    const { kb, result } = await indexCorpus(llm);
    expect(result.failures).toEqual([]);
    expect(result.stages.map).toMatchObject({ units: 7, failed: 0 });
    expect(llm.callsOf('mder/map').filter((c) => c.prompt.variables.chunk === fence(PENELOPE.summary))).toHaveLength(2);
    const snap = snapshot(kb);
    expect(snap.documents.every((d) => d.status === 'indexed')).toBe(true);
    expect(snap.triples.some((t) => t.startsWith('Penelope | WOVE | Shroud'))).toBe(true);
    kb.close();
  });

  it('a unit that fails again is recorded once, and is not asked a third time in the run', async () => {
    const rules = corpusRules({ breakOn: [{ prompt: 'mder/map', when: (v) => v.chunk === fence(PENELOPE.summary) }] });
    const llm = new ScriptedLlm(rules);
    const { kb, result } = await indexCorpus(llm);
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0]).toMatchObject({ stage: 'map', code: 'LLM_OUTPUT_INVALID' });
    const asked = llm.callsOf('mder/map').filter((c) => c.prompt.variables.chunk === fence(PENELOPE.summary));
    expect(asked).toHaveLength(2);
    kb.close();
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexingJob } from '../../../src-main/engine/mder/index.js';
import { fence } from '../../../src-main/engine/base/fence.js';
import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import { ScriptedLlm, type ScriptRule } from '../../support/ScriptedLlm.js';
import {
  addCorpusDocument,
  CHUNK_SCRIPT,
  CORPUS_FILES,
  CorpusEmbedder,
  corpusRules,
} from '../../support/corpusScript.js';
import { askedPairs } from '../../support/disambiguatePrompt.js';
import { openKb, prompts } from './support/corpusKb.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'polyhop-mder-inputs-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function corpusKb(): KnowledgeBase {
  const kb = openKb(join(dir, 'kb.sqlite'));
  for (const f of CORPUS_FILES) addCorpusDocument(kb, f);
  return kb;
}

const job = (
  kb: KnowledgeBase,
  llm: ScriptedLlm,
  options: Partial<ConstructorParameters<typeof IndexingJob>[2]> = {},
) => new IndexingJob(kb, llm, { prompts, embedder: new CorpusEmbedder(), ...options });

describe('what the indexing job hands each stage', () => {
  it('the other form Map saw beside a name is Disambiguate evidence for the pair it names', async () => {
    const rules = corpusRules();
    const map = rules.find((r) => r.prompt === 'mder/map')!;
    const ithaca = fence(CHUNK_SCRIPT['ulisse.it.txt'][0]!.summary);
    // A small model writes the English name beside the one the Italian text uses: "Ulysses (Odysseus)".
    const withOtherForm: ScriptRule = {
      prompt: 'mder/map',
      when: (v) => v.chunk === ithaca,
      reply: (v, p, s) => {
        const { triples } = map.reply(v, p, s) as { triples: { subject: string }[] };
        return { triples: triples.map((t) => (t.subject === 'Ulysses' ? { ...t, subject: 'Ulysses (Odysseus)' } : t)) };
      },
    };
    const llm = new ScriptedLlm([withOtherForm, ...rules]);
    const kb = corpusKb();
    await job(kb, llm).run();
    const pair = llm
      .callsOf('mder/disambiguate')
      .flatMap((c) => askedPairs(c.prompt.variables))
      .find((p) => [p.a, p.b].sort().join('~') === 'Odysseus~Ulysses');
    expect(pair?.evidence).toContain('also written "Odysseus"');
    kb.close();
  });

  it('Enrich sees the end of the previous chunk and the start of the next, each clipped to contextChars', async () => {
    const llm = new ScriptedLlm(corpusRules());
    const kb = corpusKb();
    const chars = 30;
    await job(kb, llm, { enrich: { contextChars: chars } }).run();
    const [first, second, third] = CHUNK_SCRIPT['odysseus.en.md'].map((c) => c.summary);
    const call = llm.callsOf('mder/enrich').find((c) => c.prompt.variables.chunk === fence(second!))!;
    expect(call.prompt.variables.before).toBe(
      `<document part="previous">\n${fence(`…${first!.slice(-chars)}`)}\n</document>\n`,
    );
    expect(call.prompt.variables.after).toContain(
      `<document part="next">\n${fence(`${third!.slice(0, chars)}…`)}\n</document>\n`,
    );
    kb.close();
  });

  it('Reduce asks only about entities that have facts: one no triple names is left alone', async () => {
    const llm = new ScriptedLlm(corpusRules());
    const kb = corpusKb();
    // An entity with no triple (as an import may leave one): stale, but with nothing to summarise.
    const lonely = kb.graph.upsertEntity('Argos', 'Dog');
    const result = await job(kb, llm).run();
    expect(result.failures).toEqual([]);
    const reduced = llm.callsOf('mder/reduce').map((c) => c.prompt.variables.entities!);
    expect(reduced.length).toBeGreaterThan(0);
    expect(reduced.some((entities) => entities.includes('Entity: Argos'))).toBe(false);
    expect(kb.graph.getEntities([lonely])[0]!.summary).toBeNull();
    kb.close();
  });
});

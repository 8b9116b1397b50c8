/**
 * The product test's merged yield (test/unit/reliability/uncooperativeProduct.test.ts) over many
 * seeds, indexing only: how many of the corpus's multilingual entities end as one entity when the
 * uncooperative double degrades the replies. 50 seeds (the test's) leave a noise of a few points;
 * this separates a change's real loss from a re-draw.
 *
 *   npm run bench mergedYield -- --from 1 --to 200
 */
import { join } from 'node:path';
import type { IndexingResult } from '../../src-main/engine/mder/IndexingJob.js';
import { ScriptedLlm } from '../support/ScriptedLlm.js';
import { UncooperativeLlm } from '../support/UncooperativeLlm.js';
import { CORPUS_DIR, CORPUS_FILES, corpusRules, NAME_VARIANTS } from '../support/corpusScript.js';
import { call, runJobToEnd, tempEngine } from '../support/tempEngine.js';
import { QaEmbedder, qaRules } from '../unit/qa/support/qaScript.js';
import { kbFacts } from '../unit/reliability/support/productFacts.js';
import { numberArg } from './support/benchArgs.js';

export async function run(args: string[]): Promise<void> {
  const from = numberArg(args, '--from', 1);
  const to = numberArg(args, '--to', 50);
  let merged = 0;
  let groups = 0;
  let calls = 0;
  const perSeed: number[] = [];
  for (let seed = from; seed <= to; seed++) {
    // As the product test: even seeds held to the grammar, odd ones ignoring the schema.
    const schema = seed % 2 === 0 ? 'grammar' : 'ignored';
    const inner = new ScriptedLlm([...corpusRules({ describeUnscripted: true }), ...qaRules()], { schema });
    const llm = new UncooperativeLlm(inner, { seed, schema, nameVariants: NAME_VARIANTS, contextTokens: 4096 });
    const { engine, dispose } = await tempEngine({ llm, embedder: new QaEmbedder() });
    try {
      await call(engine, 'kb:create', { name: 'odyssey' });
      await call(engine, 'docs:add', { kb: 'odyssey', paths: CORPUS_FILES.map((f) => join(CORPUS_DIR, f)) });
      const indexed = await runJobToEnd(engine, 'index:start', { kb: 'odyssey' });
      if (indexed.error) throw new Error(JSON.stringify(indexed.error));
      const facts = kbFacts(engine.kbs.get('odyssey').kb, indexed.result as IndexingResult, llm.resolveName);
      const ones = [...facts.entitiesOf.values()].filter((c) => c === 1).length;
      merged += ones;
      groups += facts.entitiesOf.size;
      perSeed.push(ones);
      calls += inner.calls.length;
    } finally {
      await dispose();
    }
  }
  const share = merged / groups;
  const se = Math.sqrt((share * (1 - share)) / groups);
  console.log(
    `seeds ${from}-${to}: merged ${merged}/${groups} = ${share.toFixed(3)} (± ${se.toFixed(3)} standard error), ${(calls / perSeed.length).toFixed(1)} calls per seed`,
  );
  console.log(`per seed: ${perSeed.join('')}`);
}

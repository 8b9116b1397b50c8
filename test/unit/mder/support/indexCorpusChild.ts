/**
 * Child process for the kill-and-resume test: indexes whatever is pending in the KB at argv[2]
 * with the scripted corpus model (slowed down so the parent can kill it mid-job), the call cache
 * in the KB, and prints one line per progress event and `done <innerCalls>` at the end.
 */
import { CachingLlm } from '../../../../src-main/engine/models/CachingLlm.js';
import { IndexingJob } from '../../../../src-main/engine/mder/IndexingJob.js';
import { ScriptedLlm } from '../../../support/ScriptedLlm.js';
import { CorpusEmbedder, corpusRules } from '../../../support/corpusScript.js';
import { openKb, prompts } from './corpusKb.js';

const kb = openKb(process.argv[2]!);
const inner = new ScriptedLlm(corpusRules(), { latencyMs: Number(process.argv[3] ?? 0), parallelism: 2 });
const llm = new CachingLlm(inner, { store: kb.jobState.callCache });
await new IndexingJob(kb, llm, {
  prompts,
  embedder: new CorpusEmbedder(),
  progressIntervalMs: 0,
  onProgress: (p) => process.stdout.write(`${p.stage} ${p.done}/${p.total}\n`),
}).run();
kb.close();
process.stdout.write(`done ${inner.calls.length}\n`);

import { expect } from 'vitest';
import { QaEmbedder } from '../unit/qa/support/qaScript.js';
import { rewriteRule } from '../unit/qa/support/rewriteRule.js';
import { e2eRules, E2E_CORPUS_PATHS } from './e2eCorpus.js';
import { startE2eServer, type E2eServer } from './e2eServer.js';
import { ScriptedLlm } from './ScriptedLlm.js';
import { call, runJobToEnd } from './tempEngine.js';

/** Browser mode with the e2e corpus indexed into KB "odyssey", its scripted model answering follow-ups too. */
export async function startOdysseyE2eServer(): Promise<{ server: E2eServer; llm: ScriptedLlm }> {
  const llm = new ScriptedLlm([...e2eRules(), rewriteRule]);
  const server = await startE2eServer({ models: { llm, embedder: new QaEmbedder() } });
  await call(server.engine, 'kb:create', { name: 'odyssey' });
  await call(server.engine, 'docs:add', { kb: 'odyssey', paths: E2E_CORPUS_PATHS });
  expect((await runJobToEnd(server.engine, 'index:start', { kb: 'odyssey' })).status).toBe('done');
  return { server, llm };
}

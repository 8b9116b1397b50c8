import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyBertDir } from '../fixtures/tinyBert.js';
import { SMALL_GRAPH, smallGraphTurtle } from '../support/smallGraph.js';
import { polyhopInProcess, type CliRun } from '../support/cliInProcess.js';

/**
 * Issue 13, as a newcomer types it on a fresh install (no model anywhere): `polyhop kb create`,
 * `polyhop import`, `polyhop sparql` work; `kb info` and `ask --strategy hyp` say the vectors are
 * missing and how to add them; after `models use embedding` and `kb reembed`, hyp answers.
 */
let dir: string;
let graph: string;
const { turtle } = smallGraphTurtle();

/** Runs `polyhop ARGS` in this process on the test's data and (empty) models folder. */
const polyhop = (...args: string[]): Promise<CliRun> => polyhopInProcess(dir, args);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'polyhop-cli-rdf-'));
  mkdirSync(join(dir, 'models'));
  graph = join(dir, 'Output.ttl');
  writeFileSync(graph, turtle);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('polyhop with no model installed and an existing graph', () => {
  const question = 'Which organisation is Researcher Number7 Quartz affiliated with?';

  it('creates a KB, imports the graph and answers SPARQL', async () => {
    expect(await polyhop('kb', 'create', 'mse')).toMatchObject({ code: 0 });
    const imported = await polyhop('import', graph, '--kb', 'mse');
    expect(imported.err).toBe('');
    expect(imported.code).toBe(0);
    expect(imported.out).toMatch(/Vectors missing: \d+ rows of "mse"/);
    const counted = await polyhop(
      '--json',
      'sparql',
      'SELECT (COUNT(*) AS ?n) WHERE { ?p <https://schema.org/affiliation> ?o }',
      '--kb',
      'mse',
    );
    expect(counted.code).toBe(0);
    expect(JSON.parse(counted.out).rows[0].n).toMatch(new RegExp(`^"?${SMALL_GRAPH.people}\\b`));
  });

  it('kb info says the vectors are missing and how to add them; hyp explains why it cannot answer', async () => {
    const info = await polyhop('kb', 'info', 'mse');
    expect(info.code).toBe(0);
    expect(info.out).toMatch(/"embedder": null/);
    expect(info.out).toMatch(/Vectors missing: .*polyhop models use embedding PATH.*polyhop kb reembed mse/);
    const asked = await polyhop('ask', question, '--kb', 'mse', '--strategy', 'hyp', '--retrieval-only');
    expect(asked.code).toBe(1);
    expect(asked.err).toMatch(
      /no vectors yet .*imported without an embedding model.*hyp retrieves by vector similarity/,
    );
  });

  it('embeds the vectors once an embedding model is chosen, and hyp then answers', async () => {
    const bert = await tinyBertDir();
    expect(await polyhop('models', 'use', 'embedding', bert, '--threads', '1')).toMatchObject({ code: 0 });
    const reembedded = await polyhop('kb', 'reembed', 'mse');
    expect(reembedded.err).toBe('');
    expect(reembedded.code).toBe(0);
    const info = JSON.parse((await polyhop('--json', 'kb', 'info', 'mse')).out);
    expect(info.missingVectors).toBe(0);
    expect(info.embedder?.dimension).toBeGreaterThan(0);
    const asked = await polyhop('--json', 'ask', question, '--kb', 'mse', '--strategy', 'hyp', '--retrieval-only');
    expect(asked.err).toBe('');
    expect(asked.code).toBe(0);
    // The random-weight embedder ranks arbitrarily, but BM25 (fused in) finds the named researcher.
    expect(
      JSON.parse(asked.out)
        .evidence.map((e: { text: string }) => e.text)
        .join('\n'),
    ).toMatch(/Number7 Quartz/);
  });
});

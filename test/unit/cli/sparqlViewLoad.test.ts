import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { polyhopInProcess, type CliRun } from '../../support/cliInProcess.js';
import { smallGraphTurtle } from '../../support/smallGraph.js';

/** Issue 24 point 16: each `polyhop sparql` run loads the in-memory view afresh; it waits for that load and says so. */
describe('polyhop sparql waits for the in-memory view to load', () => {
  let dir: string;
  const polyhop = (...args: string[]): Promise<CliRun> => polyhopInProcess(dir, args);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'polyhop-sparql-load-'));
    const file = join(dir, 'small.ttl');
    writeFileSync(file, smallGraphTurtle().turtle);
    expect(await polyhop('kb', 'create', 'small')).toMatchObject({ code: 0 });
    expect(await polyhop('import', file, '--kb', 'small')).toMatchObject({ code: 0 });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('shows the load on stderr, then answers', async () => {
    const run = await polyhop('sparql', 'ASK { ?s ?p ?o }', '--kb', 'small');
    expect(run, run.err).toMatchObject({ code: 0, out: 'true\n' });
    expect(run.err).toMatch(/^Loading the RDF view of "small" \([\d,]+ triples so far, \d+ s\)…\n/);
    expect(run.err).toMatch(/RDF view of "small" ready: [\d,]+ triples\.\n$/);
  });

  it('gives up after --load-timeout, saying how far the load got and what to do', async () => {
    const run = await polyhop('sparql', 'ASK { ?s ?p ?o }', '--kb', 'small', '--load-timeout', '0');
    expect(run.code).toBe(1);
    expect(run.err).toMatch(
      /the RDF view of "small" was still loading after 0 s \([\d,]+ triples so far\); give it longer with --load-timeout, or query the KB's external store \(--store\)/,
    );
  });

  it('does not wait for the view when the query goes to the store', async () => {
    const run = await polyhop('sparql', 'ASK { ?s ?p ?o }', '--kb', 'small', '--store', '--load-timeout', '0');
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/has no external SPARQL store/);
    expect(run.err).not.toMatch(/RDF view/);
  });
});

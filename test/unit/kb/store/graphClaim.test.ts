import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimGraph, graphOwner } from '../../../../src-main/engine/kb/store/graphOwner.js';
import { SparqlStoreClient } from '../../../../src-main/engine/kb/store/SparqlStoreClient.js';
import { startConformingStore } from '../../../support/conformingStore.js';

const GRAPH = 'https://example.org/kb/graph';
const KB = { id: 'kb-1', name: 'letters' };
let store: Awaited<ReturnType<typeof startConformingStore>>;
let client: SparqlStoreClient;
beforeAll(async () => {
  store = await startConformingStore();
  client = clientFor(GRAPH);
});
afterAll(() => store?.close());

/** A client of the conforming store for one graph (all three endpoints on its one URL). */
function clientFor(graphIri: string): SparqlStoreClient {
  return new SparqlStoreClient({
    queryUrl: store.url,
    updateUrl: store.url,
    graphStoreUrl: store.url,
    graphIri,
    auth: { kind: 'none' },
    batchQuads: 50_000,
    autoSync: true,
    requestTimeoutMs: 30_000,
  });
}

const OTHER_TOOLS =
  '<https://example.org/a> <https://example.org/p> "one" .\n<https://example.org/b> <https://example.org/p> "two" .\n';

describe('the graph a KB publishes into, on a store that follows the protocol to the letter', () => {
  it("counts the KB's graph (its default graph in the query's dataset)", async () => {
    await client.replaceGraph(OTHER_TOOLS);
    expect(await client.countGraph()).toBe(2);
  });

  it('refuses to claim a graph that holds statements no KB claims, unless this KB published them or takes it over', async () => {
    await client.replaceGraph(OTHER_TOOLS);
    const claim = (takeOver: boolean, publishedHereBefore: boolean): Promise<void> =>
      claimGraph(client, KB, { takeOver, publishedHereBefore });
    await expect(claim(false, false)).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/already holds 2 statements that no knowledge base claims.*--take-over/s),
    });
    expect(await graphOwner(client)).toBeNull();
    await claim(false, true); // statements from before this KB recorded owners are its own
    expect(await graphOwner(client)).toEqual(KB);
    expect(await client.countGraph()).toBe(2);
  });

  it('claims an empty graph, and takes a foreign one over when told to', async () => {
    const other = clientFor(`${GRAPH}/empty`);
    await claimGraph(other, KB, { takeOver: false, publishedHereBefore: false });
    expect(await graphOwner(other)).toEqual(KB);

    await other.update(`DELETE WHERE { GRAPH <urn:polyhop:store-owners> { <${GRAPH}/empty> ?p ?o } }`);
    await other.replaceGraph(OTHER_TOOLS);
    await claimGraph(other, KB, { takeOver: true, publishedHereBefore: false });
    expect(await graphOwner(other)).toEqual(KB);
  });
});

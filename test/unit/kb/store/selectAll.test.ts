import { describe, expect, it } from 'vitest';
import { selectAll } from '../../../../src-main/engine/kb/store/pagedSelect.js';
import type { SelectResult, SparqlStoreClient } from '../../../../src-main/engine/kb/store/SparqlStoreClient.js';

/** A client whose one answer is `result`, with no row limit to page past (so paging gives up at once). */
const answering = (result: SelectResult): SparqlStoreClient =>
  ({ select: () => Promise.resolve(result) }) as unknown as SparqlStoreClient;

/**
 * The sync's lookups that must see every row (the entities a copy links to a document, the
 * answer graphs a store holds): a cut answer fails the step instead of leaving rows unsent.
 */
describe('selectAll', () => {
  const query = 'SELECT ?id WHERE { ?s <urn:p> ?id }';
  const rows = [{ id: '1' }, { id: '2' }];

  it('returns the rows of a whole answer', async () => {
    const client = answering({ columns: ['id'], rows, truncated: false, storeMaxRows: null });
    expect(await selectAll(client, query, {}, 'the ids')).toEqual(rows);
  });

  it('fails with STORE_ERROR, saying how many came back, when the answer is cut', async () => {
    const client = answering({ columns: ['id'], rows, truncated: true, storeMaxRows: null });
    await expect(selectAll(client, query, {}, 'the ids')).rejects.toMatchObject({
      code: 'STORE_ERROR',
      message: expect.stringContaining('answered only 2 of the ids') as unknown,
    });
  });
});

import type sparqljs from 'sparqljs';
import { PolyhopError } from '../../base/errors.js';
import { parseSparql, sparqlText } from '../rdf/sparqlForm.js';
import type { SelectResult, SparqlStoreClient, StoreRequestOptions } from './SparqlStoreClient.js';

/**
 * A SELECT whose answer the store cut at its own row limit (`first.storeMaxRows`) while the caller
 * wants more: asked again in pages of that size, up to `maxRows` (plus one, to tell truncation).
 *
 * Each page is the query as a sub-select, ordered by its own ORDER BY and then every column (rows
 * equal in all columns are interchangeable, so the order is total), under an outer
 * `OFFSET … LIMIT …`; the query's own LIMIT and OFFSET move to the outer query. Virtuoso refuses
 * ORDER BY with OFFSET + LIMIT past ResultSetMaxRows on the query itself ("Sorted TOP clause
 * specifies more then 20000 rows"), and points to this form. A page the store refuses (or a
 * query that is not a plain SELECT) ends the paging: the first answer comes back, truncated.
 */
export async function pagedSelect(
  client: SparqlStoreClient,
  parsed: sparqljs.SparqlQuery | null,
  first: SelectResult,
  maxRows: number,
  options: StoreRequestOptions & { timeoutMs: number },
): Promise<SelectResult> {
  const pageSize = first.storeMaxRows;
  if (pageSize === null || first.rows.length >= maxRows || parsed?.type !== 'query' || parsed.queryType !== 'SELECT')
    return first;
  const ownOffset = parsed.offset ?? 0;
  const wanted = Math.min(maxRows + 1, parsed.limit ?? Number.POSITIVE_INFINITY);
  const ordered = new Set((parsed.order ?? []).map((o) => JSON.stringify(o.expression)));
  const tiebreakers = first.columns
    .map((c) => ({ expression: { termType: 'Variable', value: c } as sparqljs.VariableTerm }))
    .filter((o) => !ordered.has(JSON.stringify(o.expression)));
  const { prefixes, base, from, limit: _limit, offset: _offset, ...body } = parsed;
  const inner = { ...body, prefixes: {}, order: [...(parsed.order ?? []), ...tiebreakers] } as sparqljs.SelectQuery;

  const deadline = performance.now() + options.timeoutMs;
  const rows: SelectResult['rows'] = [];
  try {
    while (rows.length < wanted) {
      const limit = Math.min(pageSize, wanted - rows.length);
      const outer = {
        type: 'query',
        queryType: 'SELECT',
        variables: [{ termType: 'Wildcard', value: '*' }],
        where: [{ type: 'group', patterns: [inner] }],
        prefixes,
        ...(base !== undefined ? { base } : {}),
        ...(from !== undefined ? { from } : {}),
        offset: ownOffset + rows.length,
        limit,
      } as unknown as sparqljs.SelectQuery;
      const timeoutMs = Math.round(deadline - performance.now());
      if (timeoutMs <= 0)
        throw new PolyhopError('TIMEOUT', 'the pages of the answer took longer than the time limit', {
          details: { timeoutMs: options.timeoutMs },
        });
      const page = await client.select(sparqlText(outer), pageSize, { ...options, timeoutMs });
      rows.push(...page.rows);
      if (page.rows.length < limit) break;
    }
  } catch (error) {
    if (error instanceof PolyhopError && (error.code === 'BAD_INPUT' || error.code === 'STORE_ERROR')) return first;
    throw error;
  }
  return {
    columns: first.columns,
    rows: rows.slice(0, maxRows),
    truncated: rows.length > maxRows,
    storeMaxRows: pageSize,
  };
}

/**
 * Every row of `query`, for a sync step that would go wrong with some left off: paged past the
 * store's row limit (Virtuoso: 10,000 by default), the pages given an hour in all. Still short, it
 * fails the step with a STORE_ERROR that says how many of `what` came back.
 */
export async function selectAll(
  client: SparqlStoreClient,
  query: string,
  options: StoreRequestOptions,
  what: string,
): Promise<SelectResult['rows']> {
  const all = await pagedSelect(
    client,
    parseSparql(query),
    await client.select(query, Number.MAX_SAFE_INTEGER, options),
    Number.MAX_SAFE_INTEGER,
    { ...options, timeoutMs: 3_600_000 },
  );
  if (all.truncated)
    throw new PolyhopError(
      'STORE_ERROR',
      `the store answered only ${all.rows.length} of ${what} (its row limit is ${all.storeMaxRows})`,
    );
  return all.rows;
}

import { useCallback, useEffect, useRef, useState } from 'react';
import type { ApiError, DocumentListRow, Request } from '../../../api/index.js';
import { api } from '../../../api/index.js';
import { toApiError } from '../../lib/errors.js';

export type DocSort = NonNullable<Request<'docs:list'>['sort']>;
export const PAGE_SIZE = 200;

interface Page {
  rows: DocumentListRow[];
  generation: number;
}

/**
 * A sparse, paged view of `docs:list`: only pages the table asks for (the visible rows) are
 * fetched, so 50,000 documents cost a few requests. Changing kb/sort/filter starts afresh;
 * `refresh()` re-fetches visible pages while still showing the old rows (no flicker). Parts of a
 * file (a mail's messages and attachments) are listed under it: `containerId` null lists the
 * documents that are no part, a document's id lists its parts.
 */
export function useDocumentPages(
  kb: string,
  sort: DocSort,
  descending: boolean,
  filter: string,
  containerId: number | null,
) {
  const pages = useRef(new Map<number, Page>());
  const inflight = useRef(new Set<string>());
  const generation = useRef(0);
  const lastRange = useRef<[number, number]>([0, 0]);
  const [total, setTotal] = useState<number | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [, setTick] = useState(0);
  const query = JSON.stringify([kb, sort, descending, filter, containerId]);
  const queryRef = useRef(query);

  const fetchPage = useCallback(
    (index: number) => {
      const gen = generation.current;
      const key = `${query}#${gen}#${index}`;
      const have = pages.current.get(index);
      if ((have && have.generation === gen) || inflight.current.has(key)) return;
      inflight.current.add(key);
      api()
        .call('docs:list', {
          kb,
          sort,
          descending,
          filter,
          ...(containerId === null ? { grouped: true } : { containerId }),
          offset: index * PAGE_SIZE,
          limit: PAGE_SIZE,
        })
        .then(
          (page) => {
            if (queryRef.current !== query) return;
            pages.current.set(index, { rows: page.rows, generation: gen });
            setTotal(page.total);
            setError(null);
            setTick((n) => n + 1);
          },
          (e: unknown) => queryRef.current === query && setError(toApiError(e)),
        )
        .finally(() => inflight.current.delete(key));
    },
    [query, kb, sort, descending, filter, containerId],
  );

  /** Makes sure rows [from, to) are loaded. */
  const ensure = useCallback(
    (from: number, to: number) => {
      lastRange.current = [from, to];
      const first = Math.floor(from / PAGE_SIZE);
      const last = Math.floor(Math.max(from, to - 1) / PAGE_SIZE);
      for (let p = first; p <= last; p++) fetchPage(p);
    },
    [fetchPage],
  );

  const refresh = useCallback(() => {
    generation.current++;
    ensure(...lastRange.current);
  }, [ensure]);

  useEffect(() => {
    queryRef.current = query;
    pages.current = new Map();
    generation.current++;
    setTotal(null);
    setError(null);
    ensure(0, PAGE_SIZE);
  }, [query, ensure]);

  const rowAt = (i: number): DocumentListRow | undefined =>
    pages.current.get(Math.floor(i / PAGE_SIZE))?.rows[i % PAGE_SIZE];
  return { total, error, rowAt, ensure, refresh };
}

import { useCallback, useEffect, useRef, useState } from 'react';
import type { ApiError, Method, Request, Responses } from '../../api/index.js';
import { api } from '../../api/index.js';
import { toApiError } from './errors.js';

export type LoadState<T> =
  | { status: 'idle'; data: null; error: null }
  | { status: 'loading'; data: T | null; error: null }
  | { status: 'ready'; data: T; error: null }
  | { status: 'error'; data: T | null; error: ApiError };

/**
 * Calls `method` with `request` whenever the request (compared as JSON) changes, keeping only the
 * newest answer. Pass `null` to not call. `reload` repeats the last call, as does each change of
 * `refreshKey` (a counter the parent bumps when what it shows may have changed).
 */
export function useApi<M extends Method>(
  method: M,
  request: Request<M> | null,
  refreshKey = 0,
): LoadState<Responses[M]> & { reload: () => void } {
  const [state, setState] = useState<LoadState<Responses[M]>>({ status: 'idle', data: null, error: null });
  const [nonce, setNonce] = useState(0);
  const key = request === null ? null : JSON.stringify(request);
  const latest = useRef(0);

  useEffect(() => {
    if (key === null) {
      setState({ status: 'idle', data: null, error: null });
      return;
    }
    const ticket = ++latest.current;
    setState((s) => ({ status: 'loading', data: s.data, error: null }));
    api()
      .call(method, JSON.parse(key) as Request<M>)
      .then(
        (data) => ticket === latest.current && setState({ status: 'ready', data, error: null }),
        (error: unknown) =>
          ticket === latest.current && setState((s) => ({ status: 'error', data: s.data, error: toApiError(error) })),
      );
  }, [method, key, nonce, refreshKey]);

  const reload = useCallback(() => setNonce((n) => n + 1), []);
  return { ...state, reload };
}

/** A search box's text, and the same text trimmed once typing has paused (what to search for). */
export function useDebouncedSearch(delayMs = 250): { input: string; setInput: (text: string) => void; search: string } {
  const [input, setInput] = useState('');
  const [search, setSearch] = useState('');
  useEffect(() => {
    const id = setTimeout(() => setSearch(input.trim()), delayMs);
    return () => clearTimeout(id);
  }, [input, delayMs]);
  return { input, setInput, search };
}

/** Runs an action (a click), tracking pending/error so the button and message can show it. */
export function useAction<A extends unknown[], T>(action: (...args: A) => Promise<T>) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const run = useCallback(
    async (...args: A): Promise<T | undefined> => {
      setPending(true);
      setError(null);
      try {
        return await action(...args);
      } catch (e) {
        setError(toApiError(e));
        return undefined;
      } finally {
        setPending(false);
      }
    },
    [action],
  );
  return { run, pending, error, clearError: () => setError(null) };
}

import type { Method, Request, Responses } from '../engine/api/contract.js';

export interface WaitForViewOptions {
  call: <M extends Method>(method: M, request: Request<M>) => Promise<Responses[M]>;
  fail: (message: string) => never;
  /** How long to wait for the load, in ms. */
  timeoutMs: number;
  /** Between looks at the load's progress. Default: 1000. */
  pollMs?: number;
}

/**
 * `polyhop sparql` on the in-memory view: each CLI run opens the KB afresh, so the view loads
 * again every time, and a big KB's load outlasts the query's own time limit, so the query used to
 * fail with "still loading" on every call (issue 24 point 16). This waits for the load first,
 * saying on stderr how far it got, and on giving up says how long the load had run and how far
 * it got, so the next try can ask for enough (`--load-timeout`).
 */
export async function waitForView(kb: string, options: WaitForViewOptions): Promise<void> {
  const started = Date.now();
  let said = false;
  for (;;) {
    // kb:info starts the load when it is idle.
    const { rdf } = await options.call('kb:info', { kb });
    if (rdf.state === 'ready') {
      if (said) console.error(`RDF view of "${kb}" ready: ${rdf.triples.toLocaleString('en')} triples.`);
      return;
    }
    // The query reports the load's error in its own words.
    if (rdf.state === 'error') return;
    const waited = Date.now() - started;
    if (waited >= options.timeoutMs) {
      options.fail(
        `the RDF view of "${kb}" was still loading after ${Math.round(waited / 1000)} s ` +
          `(${rdf.triples.toLocaleString('en')} triples so far); ` +
          "give it longer with --load-timeout, or query the KB's external store (--store)",
      );
    }
    console.error(
      `Loading the RDF view of "${kb}" (${rdf.triples.toLocaleString('en')} triples so far, ${Math.round(waited / 1000)} s)…`,
    );
    said = true;
    await new Promise((resolve) => setTimeout(resolve, Math.min(options.pollMs ?? 1000, options.timeoutMs - waited)));
  }
}

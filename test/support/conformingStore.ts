import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import oxigraph from 'oxigraph';

/**
 * A SPARQL store that follows the protocols to the letter, on Oxigraph: where Virtuoso is lenient,
 * it is not. SPARQL 1.1 Protocol §2.1.4: a query with `default-graph-uri` and no `named-graph-uri`
 * has a dataset of that default graph and no named graphs, so a `GRAPH <g>` pattern matches nothing.
 * Update (`update=` form) and the Graph Store HTTP Protocol (`?graph=`, PUT replaces, POST adds,
 * Turtle) on one URL, as Oxigraph server and Fuseki serve them. `hold`, when given, is awaited
 * before each request is answered (a test keeps a sync in flight until a moment it chooses);
 * while `down()` is true every request is answered 503, as a store restarting or overloaded does.
 */
export async function startConformingStore(
  options: { hold?: () => Promise<void>; down?: () => boolean } = {},
): Promise<{
  url: string;
  store: oxigraph.Store;
  close: () => Promise<void>;
}> {
  const store = new oxigraph.Store();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    const answer = (): void => {
      if (options.down?.()) return void res.writeHead(503, { 'content-type': 'text/plain' }).end('Service Unavailable');
      try {
        const url = new URL(req.url ?? '/', 'http://store');
        const graph = url.searchParams.get('graph');
        if (graph && (req.method === 'PUT' || req.method === 'POST')) {
          const g = oxigraph.namedNode(graph);
          if (req.method === 'PUT') for (const q of store.match(null, null, null, g)) store.delete(q);
          store.load(body, { format: 'text/turtle', to_graph_name: g });
          return void res.writeHead(201).end();
        }
        const form = new URLSearchParams(body);
        const update = form.get('update');
        if (update !== null) {
          store.update(update);
          return void res.writeHead(204).end();
        }
        const defaults = form.getAll('default-graph-uri').map((g) => oxigraph.namedNode(g));
        const named = form.getAll('named-graph-uri').map((g) => oxigraph.namedNode(g));
        const dataset = defaults.length + named.length > 0 ? { default_graph: defaults, named_graphs: named } : {};
        const results = store.query(form.get('query') ?? '', {
          ...dataset,
          results_format: 'application/sparql-results+json',
        }) as string;
        res.writeHead(200, { 'content-type': 'application/sparql-results+json' }).end(results);
      } catch (error) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
      }
    };
    req.on('end', () => void Promise.resolve(options.hold?.()).then(answer));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/store`;
  return { url, store, close: () => new Promise<void>((ok) => server.close(() => ok())) };
}

// The Oxigraph store of one RdfView, in a worker thread: a wasm query cannot be interrupted, so
// RdfView enforces time limits by terminating this thread. Plain JS so it runs without a loader
// (tsx, vitest, Electron); messages are {id, op, ...} → {id, ok, value | message}.
import { parentPort } from 'node:worker_threads';
import { Store } from 'oxigraph';

const store = new Store();

function handle(msg) {
  switch (msg.op) {
    case 'load':
      // Batches of a few thousand quads, each its own transaction: measured ~2x faster than one
      // huge load, and super-linear growth disappears. Lenient: the text is ours (minted IRIs) or
      // was validated when it was imported.
      store.load(msg.text, { format: 'application/n-quads', lenient: true });
      return null;
    case 'update':
      store.update(msg.sparql);
      return null;
    case 'size':
      return store.size;
    case 'select': {
      const json = JSON.parse(store.query(msg.sparql, { results_format: 'application/sparql-results+json' }));
      const bindings = json.results.bindings;
      const rows = bindings.slice(0, msg.maxRows).map((binding) => {
        const row = {};
        for (const name of json.head.vars) row[name] = binding[name] ? termText(binding[name]) : null;
        return row;
      });
      return { columns: json.head.vars, rows, truncated: bindings.length > msg.maxRows };
    }
    case 'ask':
      return store.query(msg.sparql);
    case 'graph': {
      const text = store.query(msg.sparql, { results_format: 'application/n-triples' });
      const lines = text.split('\n').filter((line) => line !== '');
      return {
        text: lines.slice(0, msg.maxRows).join('\n'),
        count: lines.length,
        truncated: lines.length > msg.maxRows,
      };
    }
    default:
      throw new Error(`unknown op ${msg.op}`);
  }
}

function termText(term) {
  if (term.type === 'bnode') return `_:${term.value}`;
  if (term.type === 'triple') return JSON.stringify(term.value);
  return term.value;
}

parentPort.on('message', (msg) => {
  try {
    parentPort.postMessage({ id: msg.id, ok: true, value: handle(msg) });
  } catch (error) {
    parentPort.postMessage({ id: msg.id, ok: false, message: error instanceof Error ? error.message : String(error) });
  }
});

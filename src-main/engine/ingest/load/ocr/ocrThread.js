// The tesseract.js recognition thread that a document's loader thread starts for OCR (the
// `workerPath` of tesseract.js's createWorker). It runs tesseract.js's own worker script with an
// adapter that can only read files: language data comes from the @tesseract.js-data packages
// in node_modules, and a request for anything else (a langPath URL, which tesseract.js would fetch,
// by default from a CDN) fails instead of reaching the network. It reports its own memory (wasm
// heap included) so that the loader thread counts it against the document's memory limit.
// Plain JS so it runs without a loader (tsx, vitest, Electron).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { gunzipSync } from 'node:zlib';

// Tesseract prints notes on its own (a language without a special-words list, a guessed
// resolution) that would land in the app's output; its results and failures come as messages.
console.log = console.warn = console.error = () => {};

const require = createRequire(import.meta.url);
const worker = require('tesseract.js/src/worker-script');
// Picks the tesseract.js-core build (SIMD or not, LSTM only) and requires it from node_modules.
const getCore = require('tesseract.js/src/worker-script/node/getCore');

/** How often this thread reports its memory to the loader thread. */
const MEMORY_REPORT_MS = 100;

/**
 * `<langPath>/<code>.traineddata.gz`, as tesseract.js asks for it, is read from the package's
 * LSTM-only data, `<langPath>/<code>/4.0.0_best_int/<code>.traineddata.gz` (ocrLanguages.ts).
 */
const languageFile = (path) => {
  const match = /^(.*)[\\/]([a-z_]+)\.traineddata\.gz$/.exec(path);
  return match ? join(match[1], match[2], '4.0.0_best_int', `${match[2]}.traineddata.gz`) : path;
};

const offline = async (url) => {
  throw new Error(`OCR runs offline: refused to fetch ${url}`);
};

worker.setAdapter({
  getCore,
  gunzip: gunzipSync,
  fetch: offline,
  readCache: (path) => readFile(languageFile(path)),
  // Nothing is cached to disk (cacheMethod 'none'); these exist only to complete the adapter.
  writeCache: async () => {},
  deleteCache: async () => {},
  checkCache: async () => false,
});

const port = parentPort;
/** Start-up steps: a thread that fails one is of no further use and ends itself. */
const STARTUP = new Set(['load', 'loadLanguage', 'initialize']);
port.on('message', (packet) =>
  worker.dispatchHandlers(packet, (reply) => {
    port.postMessage(reply);
    if (reply.status === 'reject' && STARTUP.has(reply.action)) setImmediate(() => process.exit(1));
  }),
);

const reportMemory = () => {
  const { heapUsed, external } = process.memoryUsage();
  port.postMessage({ polyhopMemoryBytes: heapUsed + external });
};
reportMemory();
setInterval(reportMemory, MEMORY_REPORT_MS).unref();

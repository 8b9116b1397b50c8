// The thread that loads documents for DocumentLoader: one request at a time, answered with the
// loaded document or the error as data. The parent stops this thread to enforce its limits.
import { parentPort } from 'node:worker_threads';
import { getResolvedPDFJS } from 'unpdf';
import { toErrorData } from '../../base/errors.js';
import { loadDocument } from './loadDocument.js';
import { ocrThreadMemoryBytes } from './ocr/Ocr.js';
import type { LoaderReply, LoaderRequest } from './documentLoaderProtocol.js';

// PDF.js loads on first use; loading it now keeps its code out of the first document's memory
// measure (requests wait in the port until the listener below is attached).
await getResolvedPDFJS();

const port = parentPort!;
/** How often the thread samples its own memory while a document loads. */
const MEMORY_SAMPLE_MS = 100;

// In a worker, `heapUsed` and `external` (which includes ArrayBuffers and wasm memory) are this
// thread's isolate's own figures, unlike `rss`: memory another job or a model loading takes
// elsewhere in the process never counts against this document. The OCR thread this thread starts
// for a scan reports the same figures of its own (its wasm heap), and they count.
const ownMemory = (): number => {
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external + ocrThreadMemoryBytes();
};

async function handle({ id, path, options, memoryGrowthBytes }: LoaderRequest): Promise<void> {
  const reply = (message: LoaderReply) => port.postMessage(message);
  reply({ id, type: 'started' });
  const baseline = ownMemory();
  const sampler = setInterval(() => {
    const grownBytes = ownMemory() - baseline;
    if (grownBytes > memoryGrowthBytes) reply({ id, type: 'overMemory', grownBytes });
  }, MEMORY_SAMPLE_MS);
  try {
    reply({ id, type: 'done', document: await loadDocument(path, options) });
  } catch (error) {
    reply({ id, type: 'failed', error: toErrorData(error) });
  } finally {
    clearInterval(sampler);
  }
}

// `handle` answers every request, failures included, so nothing it returns is left to reject.
port.on('message', (request: LoaderRequest) => void handle(request));

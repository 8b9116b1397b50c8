// The thread that loads documents for DocumentLoader: one request at a time, answered with the
// loaded document or the error as data. The parent stops this thread to enforce its limits.
import { parentPort } from 'node:worker_threads';
import { getResolvedPDFJS } from 'unpdf';
import { toErrorData } from '../../base/errors.js';
import { loadDocument } from './loadDocument.js';
import type { LoaderReply, LoaderRequest } from './documentLoaderProtocol.js';

// PDF.js loads on first use; loading it now keeps its code out of the first document's memory
// measure (requests wait in the port until the listener below is attached).
await getResolvedPDFJS();

const port = parentPort!;
port.on('message', async ({ id, path, options }: LoaderRequest) => {
  const reply = (message: LoaderReply) => port.postMessage(message);
  reply({ id, type: 'started' });
  try {
    reply({ id, type: 'done', document: await loadDocument(path, options) });
  } catch (error) {
    reply({ id, type: 'failed', error: toErrorData(error) });
  }
});

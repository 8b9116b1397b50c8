// The thread that loads documents for DocumentLoader: one request at a time, answered with the
// loaded document or the error as data. The parent stops this thread to enforce its limits.
import { parentPort } from 'node:worker_threads';
import { toErrorData } from '../../base/errors.js';
import { loadDocument } from './loadDocument.js';
import type { LoaderReply, LoaderRequest } from './documentLoaderProtocol.js';

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

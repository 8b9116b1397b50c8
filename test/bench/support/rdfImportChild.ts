// Child process of rdfImport.bench.ts: imports one file through the streaming importer (records
// dropped, so the parser and batching alone are measured) and prints time and peak RSS as JSON.
import { importRdf } from '../../../src-main/engine/kb/rdf/importRdf.js';

const file = process.argv[2] as string;
const started = performance.now();
let batches = 0;
const result = await importRdf(file, { format: 'ntriples', onBatch: () => void batches++ });
console.log(JSON.stringify({ ms: performance.now() - started, quads: result.quads, batches, maxRssMiB: process.resourceUsage().maxRSS / 1024 }));

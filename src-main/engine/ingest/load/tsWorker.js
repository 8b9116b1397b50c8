// Starts a TypeScript worker when Polyhop runs from source (tsx, vitest): workers get no loader
// from their parent, so this plain-JS entry registers tsx before importing the real one.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);

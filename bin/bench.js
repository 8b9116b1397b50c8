#!/usr/bin/env node
// `npm run bench [name …] [-- args]`: runs test/bench/<name>.bench.ts; without a name it lists them
// (running all would take hours: some run for half an hour on their own).
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { register } from 'tsx/esm/api';

register();
const benchDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'bench');
const available = readdirSync(benchDir)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace(/\.bench\.ts$/, ''))
  .sort();
// `npm run bench x -- --n 5` arrives without the '--'; a direct `node bin/bench.js x -- --n 5` keeps it.
const args = process.argv.slice(2).filter((a) => a !== '--');
const names = args.filter((a) => available.includes(a));
const rest = args.filter((a) => !available.includes(a));
const unknown = rest.filter((a) => !a.startsWith('-') && !/^\d/.test(a) && rest.indexOf(a) === 0);
if (unknown.length > 0) {
  console.error(`Unknown benchmark "${unknown[0]}". Available: ${available.join(', ')}`);
  process.exit(2);
}
if (names.length === 0) {
  console.log(`Benchmarks (npm run bench NAME [-- args]):\n  ${available.join('\n  ')}`);
  process.exit(0);
}
for (const name of names) {
  console.log(`\n=== bench ${name} ===`);
  const mod = await import(pathToFileURL(join(benchDir, `${name}.bench.ts`)).href);
  await mod.run(rest);
}

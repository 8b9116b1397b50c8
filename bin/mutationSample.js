// `npm run mutation -- --sample N`: a module's score estimated from N of its mutants drawn at random,
// for machines where the whole module takes hours (mder/: 2,634 mutants at ~10 s each here).
// Stryker has no sampling of its own; it mutates the code inside `mutate` ranges, so each drawn
// mutant becomes the range of its node, and the nodes nested in it that were not drawn are ignored
// (bin/mutationDrawnIgnorer.js). Other mutants of a drawn node run too; only the drawn are counted.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Instrumenter } from '@stryker-mutator/instrumenter';

const quietLogger = {
  isDebugEnabled: () => false,
  debug: () => {},
  info: () => {},
  warn: (...a) => console.warn(...a),
  error: (...a) => console.error(...a),
};

/**
 * Draws `size` mutants of `files` (paths relative to `root`), the same ones for the same seed and
 * code. Returns Stryker `mutate` ranges, the drawn nodes' spans per file for the ignorer, and a key
 * per drawn mutant to find it in the report.
 */
export async function drawMutants(root, files, size, seed) {
  const inputs = files.map((name) => ({ name, mutate: true, content: readFileSync(join(root, name), 'utf8') }));
  const { mutants } = await new Instrumenter(quietLogger).instrument(inputs, {
    plugins: null,
    excludedMutations: [],
    ignorers: [],
  });
  const eligible = mutants.filter((m) => m.status !== 'Ignored');
  const order = (m) =>
    createHash('sha256')
      .update(
        `${seed}|${m.fileName}|${m.location.start.line}:${m.location.start.column}|${m.mutatorName}|${m.replacement}`,
      )
      .digest('hex');
  const drawn = eligible
    .map((m) => ({ m, k: order(m) }))
    .sort((a, b) => (a.k < b.k ? -1 : 1))
    .slice(0, size)
    .map(({ m }) => m);
  // Stryker's range syntax and Babel's locations: 1-based lines, 0-based columns; the instrumenter's
  // locations are 0-based.
  const at = ({ line, column }) => `${line + 1}:${column}`;
  const ranges = [...new Set(drawn.map((m) => `${m.fileName}:${at(m.location.start)}-${at(m.location.end)}`))];
  const spans = {};
  for (const {
    fileName,
    location: { start, end },
  } of drawn)
    (spans[fileName] ??= []).push([start.line + 1, start.column, end.line + 1, end.column]);
  return { population: eligible.length, ranges, spans, keys: new Set(drawn.map(keyOfApiMutant)) };
}

function keyOfApiMutant(m) {
  return `${m.fileName}|${m.location.start.line}:${m.location.start.column}|${m.mutatorName}|${m.replacement}`;
}

/** The same key for a mutant of Stryker's JSON report (its locations are 1-based). */
export function keyOfReportMutant(root, file, m) {
  const name = relative(root, join(root, file)).replace(/\\/g, '/');
  return `${name}|${m.location.start.line - 1}:${m.location.start.column - 1}|${m.mutatorName}|${m.replacement}`;
}

/** Wilson score interval (95 %) for `killed` of `n`, in percent. */
export function wilson95(killed, n) {
  if (n === 0) return [0, 100];
  const z = 1.96;
  const p = killed / n;
  const centre = p + (z * z) / (2 * n);
  const spread = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  const scale = 1 + (z * z) / n;
  return [(100 * (centre - spread)) / scale, (100 * (centre + spread)) / scale];
}

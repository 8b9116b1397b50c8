#!/usr/bin/env node
// `npm run mutation [--tests=glob,…] [--sample=N [--seed=S]] [module, or a path in one, …]`: Stryker
// over the code that decides quality, one target at a time, each against only the unit tests that
// guard it (vitest.mutation.config.ts); prints the score per module and lists the surviving mutants.
// Long (see README "Tests"); not part of `npm test`. `--sample` estimates it (bin/mutationSample.js).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { drawMutants, keyOfReportMutant, wilson95 } from './mutationSample.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MODULES = {
  'eval/metrics': [
    'test/unit/eval/metrics.test.ts',
    'test/unit/eval/goldenMetrics.test.ts',
    'test/unit/eval/publishedResults.test.ts',
    'test/unit/eval/normalise.test.ts',
    'test/unit/eval/scoreAnswer.test.ts',
    'test/unit/eval/bleuBrevity.test.ts',
    'test/unit/eval/metricEdges.test.ts',
  ],
  'kb/rdf': [
    'test/unit/kb/rdf*.test.ts',
    'test/unit/kb/sparql*.test.ts',
    'test/unit/api/sparqlBeyondView.test.ts',
    'test/unit/base/iri.test.ts',
  ],
  mder: ['test/unit/mder/**/*.test.ts'],
  qa: ['test/unit/qa/**/*.test.ts'],
};
const argv = process.argv.slice(2).filter((a) => a !== '--');
// `--tests=a.test.ts,b/*.test.ts` replaces the module's test list (fewer tests can only kill fewer
// mutants: a score measured so is a lower bound), for a quick run on a busy machine.
const testsOption = argv.find((a) => a.startsWith('--tests='));
const onlyTests = testsOption
  ?.slice('--tests='.length)
  .split(',')
  .filter((g) => g.length > 0);
const valueOf = (name) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const sampleSize = valueOf('sample') === undefined ? undefined : Number(valueOf('sample'));
const seed = valueOf('seed') ?? '1';
if (sampleSize !== undefined && !(Number.isInteger(sampleSize) && sampleSize > 0)) {
  console.error('--sample=N takes a whole number of mutants above 0');
  process.exit(2);
}
const args = argv.filter((a) => !a.startsWith('--'));
// A target is a module, or a file or folder inside one (`mder/planMerges.ts`, `qa/dr`): that part is
// mutated, against the whole module's tests (perTest coverage runs only those that reach a mutant).
const targets = args.map((a) => a.replace(/^src-main\/engine\//, '').replace(/\/$/, ''));
const moduleOf = (t) => Object.keys(MODULES).find((m) => t === m || t.startsWith(`${m}/`));
const unknown = targets.filter((t) => moduleOf(t) === undefined || !existsSync(join(root, 'src-main/engine', t)));
if (unknown.length > 0) {
  console.error(
    `Unknown module or path "${unknown[0]}". Modules: ${Object.keys(MODULES).join(', ')} (or a file or folder in one)`,
  );
  process.exit(2);
}
const chosen = targets.length > 0 ? targets : Object.keys(MODULES);

// The sandbox is <root>/.stryker-tmp/sandbox-*/, so the tests' ../shared (three levels above
// test/support) resolves to .stryker-tmp/shared: point it at the real one. Made only when missing, so
// that a second run started meanwhile does not pull it from under the first one's tests.
const tmp = join(root, '.stryker-tmp');
mkdirSync(tmp, { recursive: true });
if (!existsSync(join(tmp, 'shared'))) {
  rmSync(join(tmp, 'shared'), { force: true });
  symlinkSync(resolve(root, '..', 'shared'), join(tmp, 'shared'));
}

const results = [];
for (const name of chosen) {
  const slug = name.replace(/\//g, '-');
  const source = `src-main/engine/${name}`;
  const isFile = /\.(ts|js)$/.test(name);
  const sample =
    sampleSize === undefined ? undefined : await drawMutants(root, sourceFiles(source, isFile), sampleSize, seed);
  const reportFile = join('test-artifacts', 'mutation', `${slug}.json`);
  const config = {
    $schema: './node_modules/@stryker-mutator/core/schema/stryker-schema.json',
    testRunner: 'vitest',
    vitest: { configFile: 'vitest.mutation.config.ts', related: false },
    plugins: ['@stryker-mutator/vitest-runner', ...(sample ? ['./bin/mutationDrawnIgnorer.js'] : [])],
    ...(sample ? { ignorers: ['polyhop-drawn'] } : {}),
    mutate: sample?.ranges ?? (isFile ? [source] : [`${source}/**/*.ts`, `${source}/**/*.js`]),
    coverageAnalysis: 'perTest',
    concurrency: 1,
    timeoutMS: 60_000,
    reporters: ['clear-text', 'progress-append-only', 'json'],
    jsonReporter: { fileName: reportFile },
    clearTextReporter: { allowColor: false, logTests: false, reportMutants: false },
    ignorePatterns: ['/test-artifacts', '/out', '/.cache', '/models', '/reports'],
    tempDirName: '.stryker-tmp',
    cleanTempDir: process.env['POLYHOP_MUTATION_KEEP'] ? false : true,
  };
  const drawnFile = join(tmp, `${slug}.drawn.json`);
  if (sample) writeFileSync(drawnFile, JSON.stringify(sample.spans));
  const env = {
    ...process.env,
    POLYHOP_MUTATION_TESTS: (onlyTests ?? MODULES[moduleOf(name)]).join(','),
    POLYHOP_MUTATION_DRAWN: drawnFile,
  };
  const listed = spawnSync('npx', ['vitest', 'list', '--filesOnly', '-c', 'vitest.mutation.config.ts'], {
    cwd: root,
    env,
    encoding: 'utf8',
  });
  const testFiles = listed.stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.endsWith('.test.ts'));
  const configFile = join(tmp, `${slug}.conf.json`);
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  console.log(
    `\n=== mutation ${name}${sample ? ` (${sample.keys.size} of its ${sample.population} mutants drawn, seed ${seed})` : ''} ===`,
  );
  const started = Date.now();
  const run = spawnSync('npx', ['stryker', 'run', configFile], {
    cwd: root,
    stdio: 'inherit',
    env,
  });
  const minutes = (Date.now() - started) / 60_000;
  if (run.status !== 0) {
    results.push({ name, error: `stryker exited with ${run.status}`, minutes });
    continue;
  }
  const report = JSON.parse(readFileSync(join(root, reportFile), 'utf8'));
  // Stryker counts a test file that fails to load (e.g. a mutated module that no longer parses) as
  // no tests, not as a failed dry run: every mutant then "survives". Refuse such a run.
  const ran = new Set(
    Object.entries(report.testFiles ?? {})
      .filter(([, f]) => f.tests.length > 0)
      .map(([file]) => file.replace(/\\/g, '/')),
  );
  const silent = testFiles.filter((f) => ![...ran].some((r) => r.endsWith(f)));
  // With some files silent the mutants only they reach count as not killed: a lower bound, said so.
  if (testFiles.length === 0 || silent.length === testFiles.length) {
    results.push({ name, error: `no tests ran from ${silent.join(', ') || 'any file'}`, minutes });
    continue;
  }
  const counts = summarise(report, sample?.keys);
  if (sample && counts.matched < sample.keys.size) {
    results.push({
      name,
      error: `${sample.keys.size - counts.matched} drawn mutants are missing from the report`,
      minutes,
    });
    continue;
  }
  results.push({ name, minutes, tests: testFiles, sample, silent, ...counts });
}

// Stryker counts a mutant whose tests ran past timeoutMS as killed; on a loaded machine a test may
// just have been slow, so the score without them (timed out = not killed) is printed as its floor.
console.log(
  '\n=== mutation score per module: (killed + timed out) / (all mutants but compile and runtime errors);' +
    ' floor: killed / the same, timed out counted as not killed ===',
);
for (const r of results) {
  if (r.error) {
    console.log(`${r.name}: FAILED (${r.error}) after ${r.minutes.toFixed(1)} min`);
    continue;
  }
  console.log(
    `${r.name}: ${r.score.toFixed(2)} % (floor ${r.floor.toFixed(2)} % with timeouts as not killed; ` +
      `${r.killed} killed, ${r.timeout} timed out, ${r.survivors.length + r.untested.length} survived, ` +
      `${r.noCoverage.length} without coverage, ${r.errors} errors, of ${r.total}) in ${r.minutes.toFixed(1)} min`,
  );
  if (r.sample) {
    const [low, high] = wilson95(r.killed + r.timeout, r.total);
    // The interval's low end from the floor: load cannot raise it.
    const [floorLow] = wilson95(r.killed, r.total);
    console.log(
      `  estimated from ${r.total} of ${r.sample.population} mutants drawn at random (seed ${seed}): ` +
        `95 % interval ${low.toFixed(1)}–${high.toFixed(1)} %, ${floorLow.toFixed(1)}–${high.toFixed(1)} % with timeouts as not killed; ` +
        `${r.ranAlso} other mutants of the drawn nodes also ran and are not counted`,
    );
  }
  if (onlyTests) console.log(`  against only ${r.tests.join(', ')}`);
  if (r.untested.length > 0)
    console.log(
      `  a lower bound: ${r.untested.length} of the survivors ran no tests (a test file failed to load in their run)`,
    );
  if (r.silent.length > 0)
    console.log(`  a lower bound: no tests ran in Stryker's sandbox from ${r.silent.join(', ')}`);
  // Timed-out mutants are listed too: on a busy machine any of them may be a survivor.
  for (const m of [...r.survivors, ...r.untested, ...r.noCoverage, ...r.timedOut]) console.log(`  ${m}`);
}
process.exit(results.some((r) => r.error) ? 1 : 0);

/** The files Stryker's `mutate` globs of {@link source} name. */
function sourceFiles(source, isFile) {
  if (isFile) return [source];
  return readdirSync(join(root, source), { recursive: true })
    .map((f) => `${source}/${String(f).replace(/\\/g, '/')}`)
    .filter((f) => /\.(ts|js)$/.test(f))
    .sort();
}

/**
 * Counts a Stryker mutation-testing-report-schema JSON the way Stryker's "mutation score" does;
 * with `drawn`, only those mutants (the others in the report are the drawn nodes' other mutants, or ignored).
 */
function summarise(report, drawn) {
  let ranAlso = 0;
  let matched = 0;
  let killed = 0;
  let errors = 0;
  let total = 0;
  const survivors = [];
  const noCoverage = [];
  const timedOut = [];
  const untested = [];
  for (const [file, { mutants }] of Object.entries(report.files)) {
    for (const m of mutants) {
      if (drawn && !drawn.has(keyOfReportMutant(root, file, m))) {
        if (m.status !== 'Ignored') ranAlso += 1;
        continue;
      }
      matched += 1;
      const where = `${file}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName}`;
      const shown = m.replacement === undefined ? '' : ` -> ${JSON.stringify(m.replacement).slice(0, 80)}`;
      if (m.status === 'Killed') killed += 1;
      else if (m.status === 'Timeout') timedOut.push(`timed out ${where}${shown}`);
      // A survivor whose covering tests all failed to load in its run (testsCompleted 0) was never tested.
      else if (m.status === 'Survived' && m.testsCompleted === 0) untested.push(`ran no tests ${where}${shown}`);
      else if (m.status === 'Survived') survivors.push(`survived ${where}${shown}`);
      else if (m.status === 'NoCoverage') noCoverage.push(`no coverage ${where}${shown}`);
      else if (m.status === 'CompileError' || m.status === 'RuntimeError') errors += 1;
      if (m.status !== 'Ignored' && m.status !== 'CompileError' && m.status !== 'RuntimeError') total += 1;
    }
  }
  return {
    killed,
    timeout: timedOut.length,
    errors,
    total,
    survivors,
    untested,
    noCoverage,
    timedOut,
    ranAlso,
    matched,
    score: total === 0 ? 0 : (100 * (killed + timedOut.length)) / total,
    floor: total === 0 ? 0 : (100 * killed) / total,
  };
}

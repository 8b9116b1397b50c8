#!/usr/bin/env node
// `npm run mutation [--tests=glob,…] [module, or a path in one, …]`: Stryker over the code that
// decides quality, one target at a time, each against only the unit tests that guard it (vitest.mutation.config.ts); prints the score per
// module and lists the surviving mutants. Long (see README "Tests"); not part of `npm test`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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
  'kb/rdf': ['test/unit/kb/rdf*.test.ts', 'test/unit/api/sparqlBeyondView.test.ts', 'test/unit/base/iri.test.ts'],
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
const args = argv.filter((a) => a !== testsOption);
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
  const reportFile = join('test-artifacts', 'mutation', `${slug}.json`);
  const config = {
    $schema: './node_modules/@stryker-mutator/core/schema/stryker-schema.json',
    testRunner: 'vitest',
    vitest: { configFile: 'vitest.mutation.config.ts', related: false },
    plugins: ['@stryker-mutator/vitest-runner'],
    mutate: isFile ? [source] : [`${source}/**/*.ts`, `${source}/**/*.js`],
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
  const env = { ...process.env, POLYHOP_MUTATION_TESTS: (onlyTests ?? MODULES[moduleOf(name)]).join(',') };
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
  console.log(`\n=== mutation ${name} ===`);
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
  if (testFiles.length === 0 || silent.length > 0) {
    results.push({ name, error: `no tests ran from ${silent.join(', ') || 'any file'}`, minutes });
    continue;
  }
  results.push({ name, minutes, tests: testFiles, ...summarise(report) });
}

console.log('\n=== mutation score per module: (killed + timed out) / (all mutants but compile and runtime errors) ===');
for (const r of results) {
  if (r.error) {
    console.log(`${r.name}: FAILED (${r.error}) after ${r.minutes.toFixed(1)} min`);
    continue;
  }
  console.log(
    `${r.name}: ${r.score.toFixed(2)} % (${r.killed} killed, ${r.timeout} timed out, ${r.survivors.length} survived, ` +
      `${r.noCoverage.length} without coverage, ${r.errors} errors, of ${r.total}) in ${r.minutes.toFixed(1)} min`,
  );
  if (onlyTests) console.log(`  against only ${r.tests.join(', ')}`);
  for (const m of [...r.survivors, ...r.noCoverage]) console.log(`  ${m}`);
}
process.exit(results.some((r) => r.error) ? 1 : 0);

/** Counts a Stryker mutation-testing-report-schema JSON the way Stryker's "mutation score" does. */
function summarise(report) {
  let killed = 0;
  let timeout = 0;
  let errors = 0;
  let total = 0;
  const survivors = [];
  const noCoverage = [];
  for (const [file, { mutants }] of Object.entries(report.files)) {
    for (const m of mutants) {
      const where = `${file}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName}`;
      const shown = m.replacement === undefined ? '' : ` -> ${JSON.stringify(m.replacement).slice(0, 80)}`;
      if (m.status === 'Killed') killed += 1;
      else if (m.status === 'Timeout') timeout += 1;
      else if (m.status === 'Survived') survivors.push(`survived ${where}${shown}`);
      else if (m.status === 'NoCoverage') noCoverage.push(`no coverage ${where}${shown}`);
      else if (m.status === 'CompileError' || m.status === 'RuntimeError') errors += 1;
      if (m.status !== 'Ignored' && m.status !== 'CompileError' && m.status !== 'RuntimeError') total += 1;
    }
  }
  return {
    killed,
    timeout,
    errors,
    total,
    survivors,
    noCoverage,
    score: total === 0 ? 0 : (100 * (killed + timeout)) / total,
  };
}

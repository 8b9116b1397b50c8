// Runs Electronegativity's programmatic runner over one folder and prints its findings as one
// JSON line. Started by electronegativity.test.ts inside a network namespace with no route out:
// the runner tries to fetch translations and Electron's release list, which must fail at once.
// Usage: node electronegativityScan.cjs <folder> <electron version>
const run = require('@doyensec/electronegativity/dist/runner.js');

const [input, electronVersion] = process.argv.slice(2);
run({ input, customScan: [], excludeFromScan: [], isRelative: true, electronVersionOverride: electronVersion }, false)
  .then((result) => {
    const findings = result.issues.map((i) => ({
      id: i.id,
      severity: i.severity.name,
      confidence: i.confidence.name,
      file: i.file,
      line: i.location.line,
      manualReview: i.manualReview,
      sample: (i.sample || '').slice(0, 200),
      description: i.description,
    }));
    process.stdout.write(`\n${JSON.stringify({ findings, errors: result.errors })}\n`);
  })
  .catch((error) => {
    console.error(error);
    process.exit(1);
  });

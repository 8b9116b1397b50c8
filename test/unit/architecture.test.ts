import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The layering rules live in .dependency-cruiser.cjs (run by `npm run lint`); this runs the same
// check inside the test suite, so a bad edge fails `npm test` too, named by its rule.
const root = resolve(__dirname, '..', '..');
const depcruise = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

describe('architecture', () => {
  it('every import follows the layering rules (engine without electron, nothing below api/ importing it, the renderer on the contract only)', () => {
    const out = execFileSync(
      process.execPath,
      [
        depcruise,
        'src-main',
        'src-preload',
        'src-renderer',
        '--config',
        '.dependency-cruiser.cjs',
        '--output-type',
        'json',
      ],
      {
        cwd: root,
        maxBuffer: 256 * 1024 ** 2,
      },
    );
    const { summary } = JSON.parse(out.toString('utf8')) as {
      summary: { violations: Violation[]; totalCruised: number };
    };
    expect(summary.totalCruised).toBeGreaterThan(300);
    expect(summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([]);
  });
});

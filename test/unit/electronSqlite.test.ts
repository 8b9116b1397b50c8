import { describe, expect, it } from 'vitest';
// @ts-expect-error plain-JS helper of bin/start.js (no types)
import { electronSqliteBinding } from '../../bin/electronSqlite.js';
import { repoRoot } from '../support/tempEngine.js';

describe('the SQLite binding for the Electron window', () => {
  it('needs no second binding when the runtime already loads the installed one', () => {
    // Node itself stands in for Electron here: the installed binding was built for it.
    expect(electronSqliteBinding(repoRoot, process.execPath)).toBeNull();
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** A temp folder removed after the file's tests; `put` writes a file into it and returns its path. */
export function useTmpDir(prefix: string): { dir: string; put: (name: string, data: string | Uint8Array) => string } {
  const dir = mkdtempSync(join(tmpdir(), `polyhop-${prefix}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    dir,
    put: (name, data) => {
      const path = join(dir, name);
      writeFileSync(path, data);
      return path;
    },
  };
}

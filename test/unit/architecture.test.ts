import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '..', '..');
const engineDir = join(root, 'src-main', 'engine');

/** Which engine modules each module may import (STYLE.md "Dependency direction"). */
const allowed: Record<string, string[]> = {
  base: [],
  models: ['base'],
  kb: ['base', 'models/CallCache', 'models/Embedder'],
  ingest: ['base', 'models', 'kb'],
  mder: ['base', 'models', 'kb', 'ingest'],
  qa: ['base', 'models', 'kb', 'ingest'],
  eval: ['base', 'models', 'kb', 'ingest', 'mder', 'qa'],
  api: ['base', 'models', 'kb', 'ingest', 'mder', 'qa', 'eval', 'api'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx)$/.test(e.name) ? [full] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"`;]*?from\s*['"]([^'"]+)['"]/g), ...text.matchAll(/(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g), ...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g), ...text.matchAll(/require\(\s*['"]([^'"]+)['"]\s*\)/g)];
  return specifiers.map((m) => m[1] as string);
}

describe('architecture', () => {
  it('the engine never imports electron', () => {
    const offenders = sourceFiles(engineDir).flatMap((f) => importsOf(f).filter((s) => s === 'electron' || s.startsWith('electron/')).map((s) => `${relative(root, f)} imports ${s}`));
    expect(offenders).toEqual([]);
  });

  it('engine modules import only the layers below them', () => {
    const bad: string[] = [];
    for (const file of sourceFiles(engineDir)) {
      const from = relative(engineDir, file).split(sep)[0] as string;
      const allowList = allowed[from];
      if (!allowList) {
        bad.push(`${relative(root, file)}: module "${from}" is not in the layering table`);
        continue;
      }
      for (const spec of importsOf(file).filter((s) => s.startsWith('.'))) {
        const target = relative(engineDir, resolve(dirname(file), spec)).replace(/\.(js|ts)$/, '');
        if (target.startsWith('..')) {
          bad.push(`${relative(root, file)} imports ${spec} outside the engine`);
          continue;
        }
        const targetModule = target.split(sep)[0] as string;
        if (targetModule === from) continue;
        const ok = allowList.some((a) => target === a || target.startsWith(`${a}${sep}`) || targetModule === a);
        if (!ok) bad.push(`${relative(root, file)} (${from}) imports ${target}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('the renderer and preload know only the Api contract of the engine', () => {
    const bad: string[] = [];
    for (const dir of ['src-renderer', 'src-preload']) {
      for (const file of sourceFiles(join(root, dir))) {
        for (const spec of importsOf(file).filter((s) => s.startsWith('.'))) {
          const target = resolve(dirname(file), spec);
          if (target.startsWith(join(root, 'src-main')) && !target.replace(/\.(js|ts)$/, '').startsWith(join(engineDir, 'api', 'contract'))) bad.push(`${relative(root, file)} imports ${spec}`);
        }
      }
    }
    expect(bad).toEqual([]);
  });
});

// Stryker ignorer for `npm run mutation -- --sample`: leaves only the drawn mutants' nodes (and the
// nodes around them) unignored. The `mutate` ranges already keep Stryker off everything outside a
// drawn node; inside one, this turns off the nested nodes that were not drawn, which would otherwise
// run too (a drawn block holds all its statements' mutants).
import { readFileSync } from 'node:fs';
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';

/** `{ "src-main/…/file.ts": [[startLine, startColumn, endLine, endColumn], …] }`, Babel's lines (1-based). */
const drawn = JSON.parse(readFileSync(process.env['POLYHOP_MUTATION_DRAWN'] ?? '', 'utf8'));
const files = Object.entries(drawn);

const before = (l1, c1, l2, c2) => l1 < l2 || (l1 === l2 && c1 <= c2);

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'polyhop-drawn', {
    shouldIgnore(path) {
      const { loc } = path.node;
      const file = String(path.hub?.file?.opts?.filename ?? '').replace(/\\/g, '/');
      const spans = files.find(([name]) => file.endsWith(`/${name}`))?.[1];
      if (!loc || !spans) return undefined;
      const holdsOne = spans.some(
        ([sl, sc, el, ec]) =>
          before(loc.start.line, loc.start.column, sl, sc) && before(el, ec, loc.end.line, loc.end.column),
      );
      return holdsOne ? undefined : 'not drawn for this sample';
    },
  }),
];

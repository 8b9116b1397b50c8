import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnswerStaleness, FollowUpRewrite } from '../../../src-main/engine/api/contract.js';
import { repoRoot } from '../../support/tempEngine.js';

/**
 * Every string the Ask screen's conversation asks for is there in every UI language, so a
 * follow-up reviewed in Italian or Chinese reads in that language, not as a key or in English.
 */
const LOCALES = join(repoRoot, 'src-renderer', 'locales');
const SRC = join(repoRoot, 'src-renderer', 'src');
const FILES = [
  ...readdirSync(join(SRC, 'screens', 'ask')).map((f) => join(SRC, 'screens', 'ask', f)),
  join(SRC, 'components', 'PassageDialog.tsx'),
  join(SRC, 'components', 'SourceText.tsx'),
  join(SRC, 'components', 'PdfPage.tsx'),
  join(SRC, 'components', 'OpenInViewer.tsx'),
];
// Keys the screens build at run time (`threads.how.${how}`, `threads.stale.${reason}`), one per value.
const HOWS: FollowUpRewrite['how'][] = ['first-turn', 'model', 'fallback', 'asker'];
const STALE_REASONS = Object.keys({ reindexed: true, removed: true } satisfies Record<AnswerStaleness['reason'], true>);

const lookup = (tree: unknown, key: string): unknown =>
  key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], tree);

const usedKeys = (): string[] => {
  const keys = new Set<string>();
  for (const file of FILES) {
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(/\bt\('((?:threads|ask)\.[\w.]+)'/g)) keys.add(m[1]!);
  }
  for (const how of HOWS) keys.add(`threads.how.${how}`);
  for (const reason of STALE_REASONS) keys.add(`threads.stale.${reason}`);
  return [...keys].sort();
};

describe('Ask screen strings', () => {
  const keys = usedKeys();
  it('uses the conversation strings', () => {
    expect(keys).toContain('threads.standalone');
    expect(keys).toContain('threads.askedAs');
    expect(keys).toContain('threads.sourceUnavailable');
    expect(keys).toContain('ask.pageNotDrawn');
    expect(keys).toContain('ask.passageContinues');
    expect(keys).toContain('ask.openInViewer');
    expect(keys).toContain('ask.viewerFailedReason');
  });
  for (const file of readdirSync(LOCALES).filter((f) => f.endsWith('.json'))) {
    it(`${file} has every key the Ask screen uses`, () => {
      const tree: unknown = JSON.parse(readFileSync(join(LOCALES, file), 'utf8'));
      const missing = keys.filter((k) => typeof lookup(tree, k) !== 'string');
      expect(missing).toEqual([]);
    });
  }
});

import { describe, expect, it } from 'vitest';
import { excerptBlocks } from '../../../src-main/engine/mder/excerptBlocks.js';

const journal =
  'The Journal of Mathematical Physics is a peer-reviewed journal published monthly by the American Institute of Physics. ' +
  'The journal was first published bimonthly beginning in January 1960; it became a monthly publication in 1963. ' +
  'The current editor is Jan Philip Solovej from the University of Copenhagen. ' +
  'Its 2018 impact factor was 1.355, and it is indexed in many databases of mathematics and physics.';
const other = 'Kenji Treschuk (born December 26, 1982 in Honolulu, Hawaii) is an American soccer player.';
const entity = (ref: string, name: string, context: string) => ({ line: `${ref}: "${name}" (T)`, name, context });
const excerpts = (section: string) => [...section.matchAll(/<document>\n([\s\S]*?)\n<\/document>/g)].map((m) => m[1]!);

describe('excerptBlocks', () => {
  it('writes one excerpt for entities whose windows overlap in one text, holding each window; the others apart', () => {
    const section = excerptBlocks(
      [
        entity('E1', '1960', journal),
        entity('E2', 'Kenji Treschuk', other),
        entity('E3', '1963', journal),
        entity('E4', 'Copenhagen', journal),
      ],
      60,
    );
    const blocks = section.split('\n\n');
    expect(blocks.map((b) => b.split('\n<document>')[0])).toEqual([
      'E1: "1960" (T)\nE3: "1963" (T)',
      'E2: "Kenji Treschuk" (T)',
      'E4: "Copenhagen" (T)',
    ]);
    const [years, , copenhagen] = excerpts(section);
    // Each entity's own window (60 characters around its first mention) lies within its block's excerpt.
    for (const [name, text] of [
      ['1960', years],
      ['1963', years],
      ['Copenhagen', copenhagen],
    ] as const) {
      const at = journal.indexOf(name);
      expect(text).toContain(journal.slice(at - 20, at + 40));
    }
    expect(years!.length).toBeLessThan(2 * 60 + 2);
  });

  it('gives each entity its own text when the texts differ, even for the same name', () => {
    const section = excerptBlocks([entity('E1', 'Honolulu', other), entity('E2', 'Honolulu', `${other} Again.`)], 200);
    expect(excerpts(section)).toEqual([other, `${other} Again.`]);
  });
});

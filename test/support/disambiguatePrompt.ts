/** One pair of an `mder/disambiguate` prompt, read as a model reads it. */
export interface AskedPair {
  pair: string;
  a: string;
  b: string;
  aType: string;
  bType: string;
  evidence: string;
  /** The two entities' lines, each with its excerpt (which the prompt may write once for both). */
  blocks: [string, string];
}

/** One excerpt and the lines of the entities it is the context of, above it. */
const BLOCK = /^((?:E\d+: ".+" \(.*\)\n)+)(<document>\n[\s\S]*?\n<\/document>)/gm;
const ENTITY = /^(E\d+): "(.+)" \((.*)\)$/gm;
const PAIR = /^(P\d+): (E\d+) ~ (E\d+) \((.*)\)$/gm;

/**
 * The pairs a Disambiguate prompt asks about, from its variables (each entity and its excerpt is
 * written once, entities close together in one text under one excerpt, the pairs name them by
 * id): what every scripted Disambiguate rule answers.
 */
export function askedPairs(variables: Readonly<Record<string, string>>): AskedPair[] {
  const entities = new Map(
    [...variables.entities!.matchAll(BLOCK)].flatMap(([, lines, excerpt]) =>
      [...lines!.matchAll(ENTITY)].map(
        (m) => [m[1]!, { name: m[2]!, type: m[3]!, block: `${m[0]}\n${excerpt}` }] as const,
      ),
    ),
  );
  return [...variables.pairs!.matchAll(PAIR)].map(([, pair, x, y, evidence]) => {
    const a = entities.get(x!)!;
    const b = entities.get(y!)!;
    return {
      pair: pair!,
      a: a.name,
      b: b.name,
      aType: a.type,
      bType: b.type,
      evidence: evidence!,
      blocks: [a.block, b.block],
    };
  });
}

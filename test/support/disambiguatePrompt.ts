/** One pair of an `mder/disambiguate` prompt, read as a model reads it. */
export interface AskedPair {
  pair: string;
  a: string;
  b: string;
  aType: string;
  bType: string;
  evidence: string;
  /** The two entities' lines with their excerpts, as the prompt writes them. */
  blocks: [string, string];
}

const ENTITY = /^(E\d+): "(.+)" \((.*)\)\n<document>\n[\s\S]*?\n<\/document>/gm;
const PAIR = /^(P\d+): (E\d+) ~ (E\d+) \(candidate because: (.*)\)$/gm;

/**
 * The pairs a Disambiguate prompt asks about, from its variables (each entity and its excerpt is
 * written once, the pairs name them by id): what every scripted Disambiguate rule answers.
 */
export function askedPairs(variables: Readonly<Record<string, string>>): AskedPair[] {
  const entities = new Map(
    [...variables.entities!.matchAll(ENTITY)].map((m) => [m[1]!, { name: m[2]!, type: m[3]!, block: m[0] }]),
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

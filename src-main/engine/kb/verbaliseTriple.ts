/**
 * Linear verbalisation of a triple (HyP-KGRAG, section 3.1): "source relation target", the relation
 * de-underscored and lower-cased. The one place triples become text, for embedding, BM25 and prompts.
 *
 * verbaliseTriple('Odysseus', 'KING_OF', 'Ithaca') === 'Odysseus king of Ithaca'
 */
export function verbaliseTriple(source: string, relation: string, target: string): string {
  const rel = relation.replace(/_+/g, ' ').toLowerCase();
  return `${source} ${rel} ${target}`.replace(/\s+/g, ' ').trim();
}

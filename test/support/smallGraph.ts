/** Sizes of {@link smallGraphTurtle}'s graph. */
export const SMALL_GRAPH = {
  people: 12,
  organisations: ['Leibniz University Hannover', 'Technische Informationsbibliothek', 'Fraunhofer IWM'],
} as const;

/**
 * A small MSE-like Turtle graph for import tests: people with names and affiliations,
 * organisations with names. `statements` is the number of triples it holds.
 */
export function smallGraphTurtle(): { turtle: string; statements: number } {
  const lines = [
    '@prefix ex: <https://example.org/mse/> .',
    '@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .',
    '@prefix schema: <https://schema.org/> .',
    '',
  ];
  let statements = 0;
  SMALL_GRAPH.organisations.forEach((name, i) => {
    lines.push(`ex:org${i} a schema:Organization ; rdfs:label "${name}"@en .`);
    statements += 2;
  });
  for (let i = 0; i < SMALL_GRAPH.people; i++) {
    lines.push(
      `ex:person${i} a schema:Person ; rdfs:label "Researcher Number${i} Quartz" ; schema:affiliation ex:org${i % SMALL_GRAPH.organisations.length} .`,
    );
    statements += 3;
  }
  return { turtle: `${lines.join('\n')}\n`, statements };
}

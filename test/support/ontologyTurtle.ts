/**
 * A generated ontology of about `statements` statements, shaped like schema.org: classes with
 * labels, comments and a superclass; properties with a domain and a range. Used where a test needs
 * a graph big enough that the RDF view is still loading a while after it started.
 */
export function ontologyTurtle(statements: number): string {
  const lines = [
    '@prefix ex: <http://example.org/onto#> .',
    '@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .',
    '@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .',
  ];
  // Four statements per class, five per property: ~ 4.5 per item.
  const items = Math.ceil(statements / 4.5);
  for (let i = 0; i < items; i++) {
    if (i % 2 === 0) {
      const parent = i === 0 ? 'rdfs:Resource' : `ex:C${Math.floor(i / 4) * 2}`;
      lines.push(
        `ex:C${i} a rdfs:Class ; rdfs:label "Class ${i}" ; rdfs:comment "A generated class, number ${i}." ; rdfs:subClassOf ${parent} .`,
      );
    } else {
      lines.push(
        `ex:p${i} a rdf:Property ; rdfs:label "property ${i}" ; rdfs:domain ex:C${i - 1} ; rdfs:range ex:C${((i * 7) % items) & ~1} ; rdfs:comment "Relates class ${i - 1}." .`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

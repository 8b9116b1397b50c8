import { parse } from 'oxigraph';
import { RdfSerializer } from './RdfSerializer.js';
import { KbIris, fromOxigraph } from './terms.js';
import { STANDARD_PREFIXES } from './vocabulary.js';

/** A CONSTRUCT/DESCRIBE result (N-Triples or Turtle text) as Turtle with the KB's prefixes, as the SPARQL console shows it. */
export function graphResultTurtle(
  text: string,
  baseIri: string,
  format: 'application/n-triples' | 'text/turtle' = 'application/n-triples',
): string {
  return graphResultTurtleCapped(text, baseIri, format, Number.MAX_SAFE_INTEGER).turtle;
}

/** {@link graphResultTurtle} of the first `maxTriples` triples; `triples` counts all the text holds. */
export function graphResultTurtleCapped(
  text: string,
  baseIri: string,
  format: 'application/n-triples' | 'text/turtle',
  maxTriples: number,
): { turtle: string; triples: number } {
  const serializer = new RdfSerializer('turtle', { ...STANDARD_PREFIXES, ...new KbIris(baseIri).prefixes() });
  const quads = parse(text, { format });
  return {
    turtle: serializer.header() + serializer.write(quads.slice(0, maxTriples).map(fromOxigraph)) + serializer.end(),
    triples: quads.length,
  };
}

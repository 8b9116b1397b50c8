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
  const serializer = new RdfSerializer('turtle', { ...STANDARD_PREFIXES, ...new KbIris(baseIri).prefixes() });
  return serializer.header() + serializer.write(parse(text, { format }).map(fromOxigraph)) + serializer.end();
}

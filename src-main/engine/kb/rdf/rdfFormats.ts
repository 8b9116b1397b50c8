import { extname } from 'node:path';
import { PolyhopError } from '../../base/errors.js';
import type { RdfFormat } from './RdfFormat.js';

export type { RdfFormat };

/** Media types Oxigraph's parser and store take. */
export const MEDIA_TYPES: Readonly<Record<RdfFormat, string>> = {
  turtle: 'text/turtle',
  ntriples: 'application/n-triples',
  nquads: 'application/n-quads',
  rdfxml: 'application/rdf+xml',
};

const BY_EXTENSION: Readonly<Record<string, RdfFormat>> = {
  '.ttl': 'turtle',
  '.turtle': 'turtle',
  '.nt': 'ntriples',
  '.ntriples': 'ntriples',
  '.nq': 'nquads',
  '.nquads': 'nquads',
  '.rdf': 'rdfxml',
  '.owl': 'rdfxml',
  '.xml': 'rdfxml',
};

/** The format named by the file's extension; BAD_INPUT when it names none. */
export function formatOfFile(file: string): RdfFormat {
  const format = BY_EXTENSION[extname(file).toLowerCase()];
  if (!format) {
    throw new PolyhopError(
      'BAD_INPUT',
      `rdf import: cannot tell the RDF format of ${file} from its extension; choose turtle, ntriples, nquads or rdfxml`,
      {
        details: { file },
      },
    );
  }
  return format;
}

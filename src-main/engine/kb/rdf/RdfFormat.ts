/** The RDF syntaxes import and export take (a leaf file: the Api contract and the renderer use it). */
export const RDF_FORMATS = ['turtle', 'ntriples', 'nquads', 'rdfxml'] as const;
export type RdfFormat = (typeof RDF_FORMATS)[number];

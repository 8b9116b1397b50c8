/** Namespaces of the Polyhop ontology (resources/ontology.ttl) and the W3C vocabularies it uses. */
export const PH = 'https://polyhop.app/ontology#';
export const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
export const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';
export const XSD = 'http://www.w3.org/2001/XMLSchema#';
export const OWL = 'http://www.w3.org/2002/07/owl#';

export const RDF_TYPE = `${RDF}type`;
export const RDF_LANG_STRING = `${RDF}langString`;
export const RDFS_LABEL = `${RDFS}label`;
export const XSD_STRING = `${XSD}string`;
export const XSD_INTEGER = `${XSD}integer`;

/** Terms of the ontology, as full IRIs. */
export const ph = {
  Document: `${PH}Document`,
  Chunk: `${PH}Chunk`,
  Entity: `${PH}Entity`,
  Relationship: `${PH}Relationship`,
  Triple: `${PH}Triple`,
  hasChunk: `${PH}hasChunk`,
  hasEntity: `${PH}hasEntity`,
  hasRelationship: `${PH}hasRelationship`,
  belongsToDocument: `${PH}belongsToDocument`,
  belongsToChunk: `${PH}belongsToChunk`,
  hasNext: `${PH}hasNext`,
  hasPrevious: `${PH}hasPrevious`,
  hasSource: `${PH}hasSource`,
  isSourceOf: `${PH}isSourceOf`,
  hasTarget: `${PH}hasTarget`,
  isTargetOf: `${PH}isTargetOf`,
  relatesSource: `${PH}relatesSource`,
  relatesTarget: `${PH}relatesTarget`,
  hasUri: `${PH}hasUri`,
  hasContent: `${PH}hasContent`,
  hasEnglishContent: `${PH}hasEnglishContent`,
  hasName: `${PH}hasName`,
  hasDescription: `${PH}hasDescription`,
  hasSummary: `${PH}hasSummary`,
  hasEntityType: `${PH}hasEntityType`,
  hasAlias: `${PH}hasAlias`,
  hasLanguage: `${PH}hasLanguage`,
  hasOrder: `${PH}hasOrder`,
  hasStartOffset: `${PH}hasStartOffset`,
  hasEndOffset: `${PH}hasEndOffset`,
  hasPage: `${PH}hasPage`,
  hasMediaType: `${PH}hasMediaType`,
  hasContentHash: `${PH}hasContentHash`,
  hasRecordId: `${PH}hasRecordId`,
} as const;

/** Prefixes every Turtle export declares (the KB's own are added per base IRI). */
export const STANDARD_PREFIXES: Readonly<Record<string, string>> = { ph: PH, rdf: RDF, rdfs: RDFS, xsd: XSD, owl: OWL };

/** Namespaces of the Polyhop ontology (resources/ontology.ttl) and the W3C vocabularies it uses. */
export const PH = 'https://polyhop.app/ontology#';
export const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
export const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';
export const XSD = 'http://www.w3.org/2001/XMLSchema#';
export const OWL = 'http://www.w3.org/2002/07/owl#';
export const PROV = 'http://www.w3.org/ns/prov#';

export const RDF_TYPE = `${RDF}type`;
export const RDF_LANG_STRING = `${RDF}langString`;
export const RDFS_LABEL = `${RDFS}label`;
export const XSD_STRING = `${XSD}string`;
export const XSD_INTEGER = `${XSD}integer`;
export const XSD_DECIMAL = `${XSD}decimal`;
export const XSD_BOOLEAN = `${XSD}boolean`;
export const XSD_DATE_TIME = `${XSD}dateTime`;
export const RDF_JSON = `${RDF}JSON`;

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
  // Answers as data (PROV-O below; an answer's graph is named by the answer's IRI).
  Answer: `${PH}Answer`,
  Question: `${PH}Question`,
  Answering: `${PH}Answering`,
  TraceStep: `${PH}TraceStep`,
  Evidence: `${PH}Evidence`,
  Citation: `${PH}Citation`,
  Thread: `${PH}Thread`,
  Model: `${PH}Model`,
  answers: `${PH}answers`,
  hasText: `${PH}hasText`,
  hasShortAnswer: `${PH}hasShortAnswer`,
  hasStandaloneText: `${PH}hasStandaloneText`,
  inThread: `${PH}inThread`,
  hasPosition: `${PH}hasPosition`,
  hasStrategy: `${PH}hasStrategy`,
  hasSettings: `${PH}hasSettings`,
  isRetrievalOnly: `${PH}isRetrievalOnly`,
  hasStep: `${PH}hasStep`,
  hasDetail: `${PH}hasDetail`,
  hasLlmCalls: `${PH}hasLlmCalls`,
  hasPromptTokens: `${PH}hasPromptTokens`,
  hasCompletionTokens: `${PH}hasCompletionTokens`,
  hasCacheHits: `${PH}hasCacheHits`,
  hasDurationMs: `${PH}hasDurationMs`,
  hasEvidenceKind: `${PH}hasEvidenceKind`,
  hasScore: `${PH}hasScore`,
  hasCitation: `${PH}hasCitation`,
  citesDocumentHash: `${PH}citesDocumentHash`,
  citesPage: `${PH}citesPage`,
  citesStartOffset: `${PH}citesStartOffset`,
  citesEndOffset: `${PH}citesEndOffset`,
  citesChunkId: `${PH}citesChunkId`,
  isStale: `${PH}isStale`,
  hasStaleReason: `${PH}hasStaleReason`,
} as const;

/** The PROV-O terms answers are described with (https://www.w3.org/TR/prov-o/). */
export const prov = {
  Entity: `${PROV}Entity`,
  Activity: `${PROV}Activity`,
  SoftwareAgent: `${PROV}SoftwareAgent`,
  wasGeneratedBy: `${PROV}wasGeneratedBy`,
  generatedAtTime: `${PROV}generatedAtTime`,
  wasAttributedTo: `${PROV}wasAttributedTo`,
  wasAssociatedWith: `${PROV}wasAssociatedWith`,
  used: `${PROV}used`,
  startedAtTime: `${PROV}startedAtTime`,
  endedAtTime: `${PROV}endedAtTime`,
  wasInformedBy: `${PROV}wasInformedBy`,
  wasDerivedFrom: `${PROV}wasDerivedFrom`,
  wasQuotedFrom: `${PROV}wasQuotedFrom`,
  wasInvalidatedBy: `${PROV}wasInvalidatedBy`,
  invalidatedAtTime: `${PROV}invalidatedAtTime`,
} as const;

/** Prefixes every Turtle export declares (the KB's own are added per base IRI). */
export const STANDARD_PREFIXES: Readonly<Record<string, string>> = {
  ph: PH,
  prov: PROV,
  rdf: RDF,
  rdfs: RDFS,
  xsd: XSD,
  owl: OWL,
};

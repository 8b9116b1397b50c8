export { RdfView } from './RdfView.js';
export type { RdfViewOptions, RdfViewState, RdfViewStatus, SparqlOptions, SparqlResult } from './RdfView.js';
export { exportRdf } from './exportRdf.js';
export type { ExportProgress, ExportRdfOptions } from './exportRdf.js';
export { importRdf } from './importRdf.js';
export type { ImportBatch, ImportProgress, ImportRdfOptions, ImportRdfResult, ImportedAliases, ImportedEntity, ImportedTriple } from './importRdf.js';
export { buildQuads } from './buildQuads.js';
export type { BuildQuadsOptions, RdfScope } from './buildQuads.js';
export { knowledgeBaseRdfSource } from './knowledgeBaseRdfSource.js';

export { MemoryRdfSource } from './MemoryRdfSource.js';
export type { RdfRecordSource } from './RdfRecordSource.js';
export { formatOfFile } from './rdfFormats.js';
export type { RdfFormat } from './rdfFormats.js';
export type { RdfWriteFormat } from './RdfSerializer.js';
export { KbIris } from './terms.js';
export { PH, ph } from './vocabulary.js';

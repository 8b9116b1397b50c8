import { exportRdf } from '../../kb/rdf/exportRdf.js';
import { knowledgeBaseRdfSource } from '../../kb/rdf/knowledgeBaseRdfSource.js';
import { PolyhopError } from '../../base/errors.js';
import type { Handlers } from '../dispatch.js';
import type { Engine } from '../Engine.js';
import { importRdfIntoKb } from '../importRdfIntoKb.js';

type RdfMethods = 'rdf:export' | 'rdf:import' | 'sparql:query';

export function rdfHandlers(engine: Engine): Pick<Handlers, RdfMethods> {
  const { kbs } = engine;
  return {
    'rdf:export': ({ kb: name, format, scope, outputPath }) => {
      if (format === 'rdfxml') throw new PolyhopError('UNSUPPORTED', 'Export writes Turtle, N-Triples or N-Quads; RDF/XML is accepted for import only');
      const session = kbs.get(name);
      const jobId = engine.jobs.start('export', session.name, async ({ signal, progress }) => {
        const result = await exportRdf(knowledgeBaseRdfSource(session.kb), outputPath, {
          format,
          scope,
          signal,
          onProgress: (p) => progress({ stage: 'export', done: p.quads, total: 0, message: `${(p.bytes / 1e6).toFixed(1)} MB` }),
        });
        return { outputPath, quads: result.quads, bytes: result.bytes };
      });
      return { jobId };
    },
    'rdf:import': ({ kb: name, inputPath, format, baseIri }) => {
      const session = kbs.get(name);
      const jobId = engine.jobs.start('import', session.name, async ({ signal, progress }) => {
        // Without a chosen embedding model the graph still imports; its vectors wait for `kb:reembed`.
        return importRdfIntoKb(session, await engine.models.embedder(), inputPath, { ...(format ? { format } : {}), ...(baseIri ? { baseIri } : {}), signal, onProgress: progress });
      });
      return { jobId };
    },
    'sparql:query': ({ kb: name, query, allowUpdate, timeoutMs, maxRows }) => kbs.get(name).rdf.query(query, { allowUpdate, timeoutMs, maxRows }),
  };
}

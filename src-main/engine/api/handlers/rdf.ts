import { exportRdf } from '../../kb/rdf/exportRdf.js';
import { knowledgeBaseRdfSource } from '../../kb/rdf/knowledgeBaseRdfSource.js';
import { PolyhopError } from '../../base/errors.js';
import { queryStore } from '../../kb/store/queryStore.js';
import { storeCopyWarning } from '../../kb/store/storeCopyWarning.js';
import type { Handlers } from '../dispatch.js';
import type { Engine } from '../Engine.js';
import { importRdfIntoKb } from '../importRdfIntoKb.js';

type RdfMethods = 'rdf:export' | 'rdf:import' | 'sparql:query';

export function rdfHandlers(engine: Engine): Pick<Handlers, RdfMethods> {
  const { kbs } = engine;
  return {
    'rdf:export': ({ kb: name, format, scope, answers, outputPath }) => {
      if (format === 'rdfxml')
        throw new PolyhopError(
          'UNSUPPORTED',
          'Export writes Turtle, N-Triples or N-Quads; RDF/XML is accepted for import only',
        );
      const session = kbs.get(name);
      const jobId = engine.jobs.start('export', session.name, async ({ signal, progress }) => {
        const result = await exportRdf(knowledgeBaseRdfSource(session.kb), outputPath, {
          format,
          scope,
          answers,
          signal,
          onProgress: (p) =>
            progress({ stage: 'export', done: p.quads, total: 0, message: `${(p.bytes / 1e6).toFixed(1)} MB` }),
        });
        return { outputPath, quads: result.quads, bytes: result.bytes };
      });
      return { jobId };
    },
    'rdf:import': ({ kb: name, inputPath, format, baseIri }) => {
      const session = kbs.get(name);
      const jobId = engine.jobs.start('import', session.name, async ({ signal, progress }) => {
        // Without a chosen embedding model the graph still imports; its vectors wait for `kb:reembed`.
        return importRdfIntoKb(session, await engine.models.embedder(), inputPath, {
          ...(format ? { format } : {}),
          ...(baseIri ? { baseIri } : {}),
          signal,
          onProgress: progress,
        });
      });
      return { jobId };
    },
    'sparql:query': async ({ kb: name, query, allowUpdate, allowService, timeoutMs, maxRows, target }) => {
      const session = kbs.get(name);
      if (target === 'store') {
        const result = await queryStore(engine.stores.client(session), session.kb.metadata.meta().baseIri, query, {
          allowUpdate,
          allowService,
          timeoutMs,
          maxRows,
        });
        // Read after the answer: a sync that failed or started meanwhile is part of the warning.
        const status = engine.stores.status(session.name);
        const warning = status.sync ? storeCopyWarning(session.name, status.sync, status.jobId !== null) : null;
        return warning ? { ...result, storeCopy: warning } : result;
      }
      try {
        return await session.rdf.query(query, { allowUpdate, allowService, timeoutMs, maxRows });
      } catch (error) {
        throw beyondViewLimit(error, session.name, engine.stores.configured(session.name));
      }
    },
  };
}

/** The view's size refusal, with the way on: the KB's own store, or how to configure one. */
export function beyondViewLimit(error: unknown, kb: string, storeConfigured: boolean): unknown {
  if (!(error instanceof PolyhopError) || error.code !== 'UNSUPPORTED' || error.details.maxQuads === undefined)
    return error;
  const next = storeConfigured
    ? `publish it to its SPARQL store (\`polyhop store publish --kb "${kb}"\`, or Publish on the SPARQL screen) ` +
      'and query the store there (`polyhop sparql --store`)'
    : 'publish it to an external SPARQL store ' +
      `(configure one with \`polyhop store set --kb "${kb}" --query-url …\` or on the SPARQL screen, then publish) ` +
      'and query it there, or export it';
  return new PolyhopError('UNSUPPORTED', `${error.message.split(';')[0]}; ${next}`, {
    details: { ...error.details, storeConfigured },
    cause: error,
  });
}

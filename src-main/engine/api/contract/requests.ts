/** Request schemas, one per method, composed from the domains' own value sets. */
import { z } from 'zod';
import { DATASET_FORMATS } from '../../eval/types.js';
import { ABSOLUTE_IRI_RULE, isAbsoluteIri, isKbName, KB_NAME_RULE } from '../../kb/kbNaming.js';
import { RDF_FORMATS } from '../../kb/rdf/RdfFormat.js';
import { modelSelectionSchema } from '../../models/views.js';
import { STRATEGIES, THREAD_EXPORT_FORMATS } from '../../qa/Answer.js';
import type { Method } from './channels.js';

const kbName = z.string().refine(isKbName, KB_NAME_RULE);
const absoluteIri = z.string().trim().refine(isAbsoluteIri, ABSOLUTE_IRI_RULE);
const id = z.number().int().nonnegative();
const offset = z.number().int().nonnegative();
const path = z.string().min(1).max(4096);
const shortText = z.string().max(10_000);
const languageCode = z.string().regex(/^[a-z]{2,3}$/);

const empty = z.object({}).strict();
const storeUrl = z.string().url().max(2000);

/** Request schemas, one per method. Unknown fields are refused (`strict`). */
export const requestSchemas = {
  'system:doctor': empty,
  'system:getSettings': empty,
  'system:setSettings': z.object({ settings: z.record(z.string().max(100), z.unknown()) }).strict(),

  'kb:list': empty,
  'kb:create': z.object({ name: kbName, description: shortText.optional(), baseIri: absoluteIri.optional() }).strict(),
  'kb:info': z.object({ kb: kbName }).strict(),
  'kb:rename': z.object({ kb: kbName, newName: kbName }).strict(),
  'kb:delete': z.object({ kb: kbName }).strict(),
  /** Rebuilds every vector with the loaded embedding model (after switching models). */
  'kb:reembed': z.object({ kb: kbName }).strict(),
  /** Does now what a KB made by an older version still needs (started on opening it, too); jobId null: nothing to do. */
  'kb:upgrade': z.object({ kb: kbName }).strict(),
  /** One-file backup, usable while indexing runs. */
  'kb:backup': z.object({ kb: kbName, outputPath: path }).strict(),
  /** Verifies a backup file, then restores it as a KB named `name` (replacing it only when `replace`). */
  'kb:restore': z.object({ inputPath: path, name: kbName, replace: z.boolean().default(false) }).strict(),

  'docs:add': z.object({ kb: kbName, paths: z.array(path).min(1).max(10_000) }).strict(),
  'docs:list': z
    .object({
      kb: kbName,
      offset: z.number().int().nonnegative().default(0),
      limit: z.number().int().positive().max(1000).default(200),
      sort: z
        .enum(['title', 'mime', 'language', 'size', 'chunkCount', 'tripleCount', 'status', 'addedAt'])
        .default('addedAt'),
      descending: z.boolean().default(false),
      filter: z.string().max(500).default(''),
      /** Parts of a file (a mail's messages and attachments) under it only: see ListDocumentsOptions. */
      grouped: z.boolean().default(false),
      /** Only this document's parts. */
      containerId: id.optional(),
    })
    .strict(),
  'docs:get': z.object({ kb: kbName, id }).strict(),
  'docs:remove': z.object({ kb: kbName, id }).strict(),
  /** Drops what was extracted from a document and queues it again (the next indexing run redoes it). */
  'docs:reindex': z.object({ kb: kbName, id }).strict(),
  /** The document's text as loaded for indexing (the file read again), which citations' offsets point into. */
  'docs:source': z.object({ kb: kbName, id }).strict(),
  /** The page a cited passage `[startOffset, endOffset)` starts on, with the passage's offsets on it. */
  'docs:page': z
    .object({ kb: kbName, id, startOffset: offset, endOffset: offset })
    .strict()
    .refine((r) => r.endOffset >= r.startOffset, { message: 'endOffset must not be below startOffset' }),
  /** A PDF file's own bytes (the indexed ones, at most 64 MiB), from which the renderer draws a cited page. */
  'docs:file': z.object({ kb: kbName, id }).strict(),
  /** Keeps a folder in sync with the KB (added, changed, moved and deleted files follow); `ignore`: glob patterns. */
  'watch:add': z
    .object({ kb: kbName, path, ignore: z.array(z.string().min(1).max(500)).max(200).default([]) })
    .strict(),
  'watch:remove': z.object({ kb: kbName, path }).strict(),
  'watch:list': z.object({ kb: kbName.optional() }).strict(),

  'index:start': z.object({ kb: kbName }).strict(),
  'jobs:list': empty,
  'jobs:cancel': z.object({ jobId: z.string().max(100) }).strict(),
  'jobs:pause': z.object({ jobId: z.string().max(100) }).strict(),

  'graph:search': z
    .object({
      kb: kbName,
      query: z.string().max(1000),
      type: z.string().max(200).optional(),
      limit: z.number().int().positive().max(500).default(50),
    })
    .strict(),
  'graph:entity': z.object({ kb: kbName, id }).strict(),
  'graph:neighbourhood': z
    .object({
      kb: kbName,
      id,
      hops: z.number().int().min(1).max(3).default(1),
      limit: z.number().int().positive().max(20_000).default(2000),
    })
    .strict(),
  'rdf:export': z
    .object({
      kb: kbName,
      format: z.enum(RDF_FORMATS).default('turtle'),
      scope: z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('all') }).strict(),
        z.object({ kind: z.literal('original') }).strict(),
        z.object({ kind: z.literal('document'), documentId: id }).strict(),
        z.object({ kind: z.literal('entity'), entityId: id, hops: z.number().int().min(1).max(3) }).strict(),
      ]),
      /** Add every answer's PROV-O graph (named graphs in N-Quads; merged into one graph in Turtle and N-Triples). Default: false. */
      answers: z.boolean().default(false),
      outputPath: path,
    })
    .strict(),
  'rdf:import': z
    .object({
      kb: kbName,
      inputPath: path,
      format: z.enum(RDF_FORMATS).optional(),
      /** Base for the file's relative IRIs. Default: the file's own file:// URL. */
      baseIri: absoluteIri.optional(),
    })
    .strict(),
  'sparql:query': z
    .object({
      kb: kbName,
      query: z.string().min(1).max(100_000),
      allowUpdate: z.boolean().default(false),
      /** Allow SERVICE clauses: a federated query reaches another server. */
      allowService: z.boolean().default(false),
      timeoutMs: z.number().int().positive().max(600_000).default(10_000),
      maxRows: z.number().int().positive().max(100_000).default(1000),
      /** The in-memory RDF view, or the KB's external store (see `store:set`). */
      target: z.enum(['view', 'store']).default('view'),
    })
    .strict(),

  /** Points a KB at an external SPARQL 1.1 store; omitted URLs default to `queryUrl`, an omitted password keeps the stored one. */
  'store:set': z
    .object({
      kb: kbName,
      queryUrl: storeUrl,
      updateUrl: storeUrl.optional(),
      graphStoreUrl: storeUrl.optional(),
      /** Default: `<the KB's base IRI>graph`. */
      graphIri: z.string().url().max(2000).optional(),
      auth: z
        .discriminatedUnion('kind', [
          z.object({ kind: z.literal('none') }).strict(),
          z
            .object({
              kind: z.literal('basic'),
              username: z.string().min(1).max(200),
              password: z.string().max(1000).optional(),
            })
            .strict(),
          z
            .object({
              kind: z.literal('digest'),
              username: z.string().min(1).max(200),
              password: z.string().max(1000).optional(),
            })
            .strict(),
        ])
        .default({ kind: 'none' }),
      batchQuads: z.number().int().min(100).max(1_000_000).optional(),
      /** Limit for one request to the store (a publishing batch, an update), in ms. Default: the previous setting, else 300,000. */
      requestTimeoutMs: z.number().int().min(1000).max(3_600_000).optional(),
      /** Sync after every indexing run, import and document removal. Default: true. */
      autoSync: z.boolean().optional(),
    })
    .strict(),
  /** The KB's store and sync state; `probe` also counts the statements in the store's graph. */
  'store:show': z.object({ kb: kbName, probe: z.boolean().default(false) }).strict(),
  /** Replaces the store's graph with the whole KB (a full resync). */
  'store:publish': z
    .object({
      kb: kbName,
      /** Publish into a graph another KB owns (refused otherwise), and own it from then on. */
      takeOver: z.boolean().default(false),
    })
    .strict(),
  /** Sends what changed since the last sync (in full when a full publish is due). */
  'store:sync': z.object({ kb: kbName }).strict(),
  /** Forgets the KB's store (the store's graph is left as it is). */
  'store:remove': z.object({ kb: kbName }).strict(),

  'qa:ask': z
    .object({
      kb: kbName,
      question: z.string().min(1).max(4000),
      strategy: z.enum(STRATEGIES).default('dr'),
      answerLanguage: z
        .string()
        .regex(/^[a-z]{2,3}$/)
        .optional(),
      retrievalOnly: z.boolean().default(false),
      /**
       * Whether the answer is kept: in the history, as data (its named graph) and in its thread.
       * false writes nothing (MCP's read-only `search_passages`); it cannot go with `thread`.
       */
      keep: z.boolean().default(true),
      /** Files the answer as the next turn of this thread ('new': the first turn of a new one). */
      thread: z.union([id, z.literal('new')]).optional(),
      /** With `thread`: the standalone question to answer `question` as (from `qa:rewrite`, as the asker left it). Default: rewritten in the job. */
      standalone: z.string().trim().min(1).max(4000).optional(),
    })
    .strict(),
  /** A follow-up made standalone from its thread (one structured call), to review before `qa:ask`. */
  'qa:rewrite': z.object({ kb: kbName, thread: id, question: z.string().trim().min(1).max(4000) }).strict(),
  /** The KB's threads, latest continued first; `search` matches titles and questions. */
  'threads:list': z
    .object({
      kb: kbName,
      search: z.string().max(1000).default(''),
      limit: z.number().int().positive().max(1000).default(100),
    })
    .strict(),
  'threads:get': z.object({ kb: kbName, thread: id }).strict(),
  'threads:rename': z.object({ kb: kbName, thread: id, title: z.string().trim().min(1).max(200) }).strict(),
  /** Deletes the thread and its turns; the history keeps their answers. */
  'threads:delete': z.object({ kb: kbName, thread: id }).strict(),
  'threads:export': z
    .object({ kb: kbName, thread: id, format: z.enum(THREAD_EXPORT_FORMATS).default('markdown') })
    .strict(),
  /** How long one question may take with each strategy (measured tokens, published GPU rates). */
  'qa:estimate': empty,
  'qa:history': z
    .object({
      kb: kbName,
      search: z.string().max(1000).default(''),
      limit: z.number().int().positive().max(1000).default(100),
    })
    .strict(),

  'models:list': empty,
  'models:catalog': empty,
  'models:status': empty,
  'models:load': modelSelectionSchema.extend({ role: z.enum(['generation', 'embedding']) }).strict(),
  'models:unload': z.object({ role: z.enum(['generation', 'embedding']) }).strict(),
  'models:inspect': z.object({ path }).strict(),
  'models:import': z.object({ path, mode: z.enum(['copy', 'reference']).default('copy') }).strict(),
  'models:remove': z.object({ file: z.string().min(1).max(500) }).strict(),
  'models:download': z.object({ catalogId: z.string().min(1).max(200) }).strict(),
  'models:try': z
    .object({ prompt: z.string().min(1).max(10_000), maxTokens: z.number().int().positive().max(4096).default(256) })
    .strict(),

  /** Inference servers (settings `endpoints`); the handler checks a new one against its full schema (models/endpoints/EndpointConfig.ts). */
  'endpoints:list': empty,
  'endpoints:add': z
    .object({
      id: z.string().min(1).max(100),
      role: z.enum(['generation', 'embedding']),
      baseUrl: z.string().min(1).max(2000),
      model: z.string().min(1).max(200),
      apiKey: z.string().min(1).max(1000).optional(),
      concurrency: z.number().int().optional(),
    })
    .strict(),
  'endpoints:remove': z.object({ id: z.string().min(1).max(100) }).strict(),
  /** One real round trip (`GET /models`) to a configured endpoint. */
  'endpoints:test': z.object({ id: z.string().min(1).max(100) }).strict(),

  'eval:run': z
    .object({
      datasetPath: path,
      format: z.enum(DATASET_FORMATS),
      strategies: z.array(z.enum(STRATEGIES)).min(1).max(STRATEGIES.length),
      /** Default: the data set's own language. */
      languages: z.array(languageCode).min(1).max(20).optional(),
      limit: z.number().int().positive().max(100_000).default(20),
      sample: z.enum(['first', 'random']).default('first'),
      outDir: path,
      corpusPath: path.optional(),
      graphPath: path.optional(),
      datasetLanguage: languageCode.optional(),
      judge: z.boolean().default(true),
      /** A second generation model (GGUF) for LLM-as-judge, so the judge is not the model under test. Default: the generation model. */
      judgeModel: modelSelectionSchema.optional(),
      /** The embedding model of the similarity metric, named in the report (e.g. all-MiniLM-L6-v2, as HyP-KGRAG). Default: none, no similarity column. */
      similarityModel: modelSelectionSchema.optional(),
      baselines: z.array(z.enum(STRATEGIES)).max(STRATEGIES.length).optional(),
      concurrency: z.number().int().min(1).max(16).default(1),
    })
    .strict(),
  'eval:report': z.object({ outDir: path }).strict(),
} as const satisfies Record<Method, z.ZodType>;

export type Request<M extends Method> = z.input<(typeof requestSchemas)[M]>;
export type ParsedRequest<M extends Method> = z.output<(typeof requestSchemas)[M]>;

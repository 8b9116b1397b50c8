/**
 * `polyhop <command>`: the CLI front door. Every command is one or more Api calls on an
 * in-process engine; long ones are jobs whose progress renders as bars on stderr.
 */
import { Command, Option } from 'commander';
import { resolve } from 'node:path';
import type { Engine } from './engine/api/Engine.js';
import { appPaths, defaultDataDir } from './engine/api/paths.js';
import { logUnhandledRejections } from './engine/api/logUnhandledRejections.js';
import {
  DATASET_FORMATS,
  STRATEGIES,
  RDF_FORMATS,
  type Method,
  type Request,
  type Responses,
} from './engine/api/contract.js';
import { runJob, type JobResult } from './cli/runJob.js';
import { StreamedAnswer } from './cli/StreamedAnswer.js';
import { indexingFailureMessage, missingVectorsHint, printDoctor, printTable, truncationNote } from './cli/format.js';
import { chatReasoningLine } from './cli/format.js';
import { addEndpointCommands } from './cli/endpointCommands.js';
import { finishStoreSync } from './cli/finishStoreSync.js';
import { registerStoreCommands } from './cli/storeCommands.js';
import { registerWatchCommands } from './cli/watchCommands.js';
import { registerChatCommand } from './cli/chatCommand.js';

export interface CliOptions {
  appRoot: string;
  argv: string[];
  /** Starts browser mode (kept out of this file so the CLI does not load the HTTP server unless asked). */
  serve: (engine: Engine, port: number | undefined) => Promise<void>;
  /** Test hook: the engine to run on instead of one over `--data-dir` (the caller disposes it). */
  engine?: Engine;
  /** Where `polyhop chat` reads its questions. Default: stdin. */
  input?: NodeJS.ReadableStream;
}

export class CliError extends Error {}

export async function runCli({ appRoot, argv, serve, engine: injected, input }: CliOptions): Promise<number> {
  // Browser mode runs here too: one escaped rejection must not end the server and its jobs.
  logUnhandledRejections();
  let engine: Engine | undefined = injected;
  const program = new Command('polyhop')
    .description('Offline knowledge-graph question answering over your documents with local models.')
    .option('--data-dir <dir>', 'data directory (default: POLYHOP_DATA_DIR or the per-user data folder)')
    .option('--models-dir <dir>', 'models folder (default: POLYHOP_MODELS_DIR or <app>/models)')
    .option('--json', 'print machine-readable JSON')
    .showHelpAfterError()
    .exitOverride();

  const getEngine = async (): Promise<Engine> => {
    if (!engine) {
      const opts = program.opts<{ dataDir?: string; modelsDir?: string }>();
      // Loaded on first use, so `--help` does not pay for the engine's native modules.
      const { Engine } = await import('./engine/api/Engine.js');
      engine = await Engine.create({
        paths: appPaths(appRoot, opts.dataDir ? resolve(opts.dataDir) : defaultDataDir(), opts.modelsDir),
      });
    }
    return engine;
  };
  const json = (): boolean => Boolean(program.opts<{ json?: boolean }>().json);
  const call = async <M extends Method>(method: M, request: Request<M>): Promise<Responses[M]> => {
    const reply = await (await getEngine()).call(method, request);
    if (!reply.ok) throw new CliError(`${reply.error.code}: ${reply.error.message}`);
    return reply.value as Responses[M];
  };
  const job = async <M extends Method>(
    method: M,
    request: Request<M>,
    options: { pauseOnInterrupt?: boolean; onToken?: ((text: string, reset: boolean) => void) | undefined } = {},
  ): Promise<JobResult> => {
    const { jobId } = (await call(method, request)) as { jobId: string };
    return runJob(await getEngine(), jobId, { ...options, quiet: json() });
  };
  const out = (value: unknown, human: () => void): void => {
    if (json()) process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    else human();
  };
  const storeSynced = (kbName: string): Promise<void> =>
    finishStoreSync(
      {
        call,
        getEngine,
        quiet: json(),
        fail: (m) => {
          throw new CliError(m);
        },
      },
      kbName,
    );

  program
    .command('doctor')
    .description('report versions, the llama.cpp backend and GPUs, models found and the data directory')
    .action(async () => {
      const report = await call('system:doctor', {});
      out(report, () => printDoctor(report));
    });

  program
    .command('serve')
    .description('browser mode: serve the app on 127.0.0.1 with a per-run token')
    .option('--port <n>', 'port (default: a random free port)', (v) => Number.parseInt(v, 10))
    .action(async (opts: { port?: number }) => {
      await serve(await getEngine(), opts.port);
    });

  program
    .command('mcp')
    .description(
      'serve the knowledge bases to other local apps over the Model Context Protocol (stdio; --http: 127.0.0.1 with a token)',
    )
    .option('--http', 'streamable HTTP on 127.0.0.1 instead of stdio')
    .option('--port <n>', 'with --http: port (default: a random free port)', (v) => Number.parseInt(v, 10))
    .action(async (opts: { http?: boolean; port?: number }) => {
      const { runMcpStdio, startMcpHttp } = await import('./mcp.js');
      if (!opts.http) return runMcpStdio(await getEngine());
      const server = await startMcpHttp(await getEngine(), opts.port ? { port: opts.port } : {});
      process.stdout.write(
        `Polyhop MCP server at ${server.url}\nSend this run's token with every request: Authorization: Bearer ${server.token}\n`,
      );
      await new Promise<void>((stop) => {
        process.once('SIGINT', () => stop());
        process.once('SIGTERM', () => stop());
      });
      await server.close();
    });

  const kb = program.command('kb').description('manage knowledge bases');
  kb.command('create <name>')
    .description('create a knowledge base')
    .option('--description <text>', 'what it holds')
    .option('--base-iri <iri>', 'base IRI for its RDF view')
    .action(async (name: string, opts: { description?: string; baseIri?: string }) => {
      const created = await call('kb:create', {
        name,
        ...(opts.description ? { description: opts.description } : {}),
        ...(opts.baseIri ? { baseIri: opts.baseIri } : {}),
      });
      out(created, () => console.log(`Created knowledge base "${created.name}" (${created.baseIri})`));
    });
  kb.command('list')
    .description('list knowledge bases')
    .action(async () => {
      const list = await call('kb:list', {});
      out(list, () =>
        printTable(
          list.map((k) => ({
            name: k.name,
            documents: k.documentCount,
            entities: k.entityCount,
            triples: k.tripleCount,
            embedder: k.embedder?.identity ?? '-',
          })),
        ),
      );
    });
  kb.command('info <name>')
    .description('counts, embedder, RDF view state and size of a knowledge base')
    .action(async (name: string) => {
      const info = await call('kb:info', { kb: name });
      out(info, () => {
        console.log(JSON.stringify(info, null, 2));
        const hint = missingVectorsHint(name, info.missingVectors, info.embedder !== null);
        if (hint) console.log(hint);
      });
    });
  kb.command('rename <name> <newName>')
    .description('rename a knowledge base')
    .action(async (name: string, newName: string) => {
      const renamed = await call('kb:rename', { kb: name, newName });
      out(renamed, () => console.log(`Renamed to "${renamed.name}"`));
    });
  kb.command('delete <name>')
    .description('delete a knowledge base and everything in it')
    .action(async (name: string) => {
      await call('kb:delete', { kb: name });
      out({ deleted: name }, () => console.log(`Deleted knowledge base "${name}"`));
    });

  kb.command('reembed <name>')
    .description('rebuild the vectors of a knowledge base with the selected embedding model')
    .action(async (name: string) => {
      const result = await job('kb:reembed', { kb: name });
      if (result.status !== 'done') throw new CliError(result.error?.message ?? `re-embedding ${result.status}`);
      out(result.result, () => console.log(`Re-embedded "${name}"`));
    });
  kb.command('backup <name> <file>')
    .description('write the knowledge base to one file (works while indexing runs)')
    .action(async (name: string, file: string) => {
      const result = await job('kb:backup', { kb: name, outputPath: resolve(file) });
      if (result.status !== 'done') throw new CliError(result.error?.message ?? `backup ${result.status}`);
      out(result.result, () => console.log(`Backed up "${name}" to ${resolve(file)}`));
    });
  kb.command('restore <file> <name>')
    .description('verify a backup file and restore it as a knowledge base')
    .option('--replace', 'replace an existing knowledge base of that name')
    .action(async (file: string, name: string, opts: { replace?: boolean }) => {
      const result = await job('kb:restore', { inputPath: resolve(file), name, replace: Boolean(opts.replace) });
      if (result.status !== 'done') throw new CliError(result.error?.message ?? `restore ${result.status}`);
      out(result.result, () => console.log(`Restored "${name}" from ${resolve(file)}`));
    });

  program
    .command('add <paths...>')
    .description('add files or folders (recursive) to a knowledge base; unchanged files are skipped')
    .requiredOption('--kb <name>', 'knowledge base')
    .option(
      '--watch',
      'keep the folders in sync from now on (followed while `polyhop watch`, browser mode or the window runs)',
    )
    .option(
      '--ignore <pattern>',
      'with --watch: glob to leave out, e.g. "*.bak" (repeatable)',
      (v: string, all: string[]) => [...all, v],
      [],
    )
    .action(async (paths: string[], opts: { kb: string; watch?: boolean; ignore: string[] }) => {
      const watched: Responses['watch:add'][] = [];
      for (const path of opts.watch ? paths : [])
        watched.push(await call('watch:add', { kb: opts.kb, path: resolve(path), ignore: opts.ignore }));
      const result = await call('docs:add', { kb: opts.kb, paths: paths.map((p) => resolve(p)) });
      out(opts.watch ? { ...result, watched } : result, () => {
        console.log(
          `Added ${result.added.length} document(s), ${result.unchanged} unchanged, ${result.renamed} moved, ${result.removed} removed.`,
        );
        for (const e of result.errors) console.log(`  error: ${e.path}: ${e.reason}`);
        const est = result.estimate;
        if (est) {
          const rest = est.uncounted > 0 ? `; ${est.uncounted} PDF, office or e-book files not counted` : '';
          console.log(
            `Indexing ${est.documents} text document(s): ${est.text} (estimate${rest}; run \`polyhop index\`).`,
          );
        }
        for (const w of watched)
          console.log(`Watching ${w.path} (run \`polyhop watch --kb ${opts.kb}\` to follow it here).`);
      });
      await storeSynced(opts.kb);
    });

  program
    .command('index')
    .description('index pending documents with MDER (Ctrl-C pauses cleanly; run again to resume)')
    .requiredOption('--kb <name>', 'knowledge base')
    .action(async (opts: { kb: string }) => {
      const result = await job('index:start', { kb: opts.kb }, { pauseOnInterrupt: true });
      const failures = result.status === 'done' ? indexingFailureMessage(result.result) : null;
      out(result, () => {
        if (!failures) console.log(`Indexing ${result.status}.`);
      });
      await storeSynced(opts.kb);
      if (result.status === 'failed') throw new CliError(result.error?.message ?? 'indexing failed');
      if (failures) throw new CliError(failures);
    });

  program
    .command('docs')
    .description('documents of a knowledge base with their status and errors')
    .requiredOption('--kb <name>', 'knowledge base')
    .option('--filter <text>', 'filter by name, type, language or status', '')
    .option('--limit <n>', 'rows', (v) => Number.parseInt(v, 10), 200)
    .action(async (opts: { kb: string; filter: string; limit: number }) => {
      const page = await call('docs:list', { kb: opts.kb, filter: opts.filter, limit: opts.limit });
      out(page, () => {
        printTable(
          page.rows.map((d) => ({
            id: d.id,
            title: d.title,
            lang: d.language ?? '-',
            chunks: d.chunkCount,
            triples: d.tripleCount,
            status: d.status,
            error: d.error ?? '',
          })),
        );
        console.log(`${page.rows.length} of ${page.total}`);
      });
    });

  program
    .command('rm <documentId>')
    .description('remove a document and everything that exists only because of it')
    .requiredOption('--kb <name>', 'knowledge base')
    .action(async (documentId: string, opts: { kb: string }) => {
      await call('docs:remove', { kb: opts.kb, id: Number.parseInt(documentId, 10) });
      out({ removed: documentId }, () => console.log(`Removed document ${documentId}`));
      await storeSynced(opts.kb);
    });

  program
    .command('reindex <documentId>')
    .description('drop what was extracted from a document and queue it again (then run `polyhop index`)')
    .requiredOption('--kb <name>', 'knowledge base')
    .action(async (documentId: string, opts: { kb: string }) => {
      const result = await call('docs:reindex', { kb: opts.kb, id: Number.parseInt(documentId, 10) });
      out(result, () => {
        console.log(`Queued ${result.added.map((d) => d.title).join(', ') || 'nothing'} for indexing.`);
        for (const e of result.errors) console.log(`  error: ${e.path}: ${e.reason}`);
      });
    });

  program
    .command('ask <question>')
    .description('answer a question over a knowledge base, with citations')
    .requiredOption('--kb <name>', 'knowledge base')
    .addOption(new Option('--strategy <name>', 'answering strategy').choices([...STRATEGIES]).default('dr'))
    .option('--lang <code>', 'answer language (default: the question language)')
    .option('--retrieval-only', 'no generation: ranked evidence with citations')
    .option('--trace', 'print the strategy steps')
    .option('--thread <id>', 'continue this thread: a follow-up is made standalone from its turns first')
    .action(
      async (
        question: string,
        opts: {
          kb: string;
          strategy: (typeof STRATEGIES)[number];
          lang?: string;
          retrievalOnly?: boolean;
          trace?: boolean;
          thread?: string;
        },
      ) => {
        const thread = opts.thread === undefined ? 'new' : Number(opts.thread);
        if (thread !== 'new' && !(Number.isInteger(thread) && thread > 0))
          throw new CliError(`--thread takes a thread id (a positive integer), not "${opts.thread}"`);
        // On a terminal the answer streams as it is written (the short answer follows it); piped, the short answer comes first.
        const streamed = !json() && process.stdout.isTTY ? new StreamedAnswer(process.stdout) : null;
        const result = await job(
          'qa:ask',
          {
            kb: opts.kb,
            question,
            strategy: opts.strategy,
            retrievalOnly: Boolean(opts.retrievalOnly),
            thread,
            ...(opts.lang ? { answerLanguage: opts.lang } : {}),
          },
          { onToken: streamed?.onToken },
        );
        if (result.status !== 'done') throw new CliError(result.error?.message ?? `question ${result.status}`);
        const answer = result.result as Responses['qa:history'][number]['answer'];
        out(answer, () => {
          if (streamed) streamed.finish(answer);
          else {
            if (answer.shortAnswer) console.log(`${answer.shortAnswer}\n`);
            process.stdout.write(answer.text);
          }
          process.stdout.write('\n\nSources:\n');
          answer.evidence.forEach((e, i) => {
            const cites = e.citations
              .map((c) => `${c.documentTitle}${c.page ? ` p.${c.page}` : ''} [${c.startOffset}-${c.endOffset}]`)
              .join('; ');
            console.log(`  [${i + 1}] ${e.label}${cites ? ` — ${cites}` : ''}`);
          });
          if (opts.trace)
            for (const step of answer.trace)
              console.log(
                `\n# ${step.step} (${step.llmCalls} calls, ${step.promptTokens}+${step.completionTokens} tokens, ${Math.round(step.ms)} ms)\n${JSON.stringify(step.detail, null, 2)}`,
              );
          if (answer.question !== question.trim()) console.log(`\nAsked as: ${answer.question}`);
          if (answer.thread)
            console.log(
              `\nThread ${answer.thread.id}, turn ${answer.thread.position}: continue with --thread ${answer.thread.id}`,
            );
        });
      },
    );

  registerChatCommand(program, () => ({
    job: (method, request) => job(method, request),
    input: input ?? process.stdin,
  }));

  program
    .command('export')
    .description(
      'export the RDF view (whole KB, one document, an entity neighbourhood, or the statements an RDF import brought)',
    )
    .requiredOption('--kb <name>', 'knowledge base')
    .requiredOption('-o, --output <file>', 'output file')
    .addOption(
      new Option('--format <format>', 'RDF syntax')
        .choices(RDF_FORMATS.filter((f) => f !== 'rdfxml'))
        .default('turtle'),
    )
    .option('--document <id>', 'only this document', (v) => Number.parseInt(v, 10))
    .option('--entity <name>', 'only this entity and its neighbourhood')
    .option('--hops <n>', 'neighbourhood size for --entity', (v) => Number.parseInt(v, 10), 1)
    .addOption(
      new Option(
        '--scope <scope>',
        'all: the KB with its own records; original: only the statements an RDF import brought, as they were',
      )
        .choices(['all', 'original'])
        .default('all'),
    )
    .action(
      async (opts: {
        kb: string;
        output: string;
        format: (typeof RDF_FORMATS)[number];
        document?: number;
        entity?: string;
        hops: number;
        scope: 'all' | 'original';
      }) => {
        let scope: Request<'rdf:export'>['scope'] = { kind: opts.scope };
        if (opts.scope === 'original' && (opts.document !== undefined || opts.entity))
          throw new CliError('--scope original exports the whole imported graph; leave out --document and --entity');
        if (opts.document !== undefined) scope = { kind: 'document', documentId: opts.document };
        else if (opts.entity) {
          const found = await call('graph:search', { kb: opts.kb, query: opts.entity, limit: 1 });
          if (!found[0]) throw new CliError(`No entity matching "${opts.entity}" in ${opts.kb}`);
          scope = { kind: 'entity', entityId: found[0].id, hops: opts.hops };
        }
        const result = await job('rdf:export', {
          kb: opts.kb,
          format: opts.format,
          scope,
          outputPath: resolve(opts.output),
        });
        if (result.status !== 'done') throw new CliError(result.error?.message ?? `export ${result.status}`);
        out(result.result, () => console.log(`Wrote ${resolve(opts.output)}`));
      },
    );

  program
    .command('import <file>')
    .description('import an RDF graph (Turtle, N-Triples, N-Quads, RDF/XML) into a knowledge base (created if missing)')
    .requiredOption('--kb <name>', 'knowledge base')
    .addOption(new Option('--format <format>', 'RDF syntax (default: from the extension)').choices([...RDF_FORMATS]))
    .option('--base <iri>', "base IRI for the file's relative IRIs (default: the file's own file:// URL)")
    .action(async (file: string, opts: { kb: string; format?: (typeof RDF_FORMATS)[number]; base?: string }) => {
      const existing = await call('kb:list', {});
      if (!existing.some((k) => k.name === opts.kb)) await call('kb:create', { name: opts.kb });
      const result = await job('rdf:import', {
        kb: opts.kb,
        inputPath: resolve(file),
        ...(opts.format ? { format: opts.format } : {}),
        ...(opts.base ? { baseIri: opts.base } : {}),
      });
      if (result.status !== 'done') throw new CliError(result.error?.message ?? `import ${result.status}`);
      out(result.result, () => {
        console.log(`Imported ${file} into "${opts.kb}": ${JSON.stringify(result.result)}`);
        const hint = missingVectorsHint(opts.kb, (result.result as { missingVectors: number }).missingVectors);
        if (hint) console.log(hint);
      });
      await storeSynced(opts.kb);
    });

  program
    .command('sparql <query>')
    .description('run a SPARQL query (read-only unless --allow-update)')
    .requiredOption('--kb <name>', 'knowledge base')
    .option('--allow-update', 'permit SPARQL UPDATE')
    .option('--timeout <ms>', 'time limit', (v) => Number.parseInt(v, 10), 10_000)
    .option('--max-rows <n>', 'row cap', (v) => Number.parseInt(v, 10), 1000)
    .option('--store', "query the KB's external SPARQL store instead of the in-memory view (see `polyhop store`)")
    .action(
      async (
        query: string,
        opts: { kb: string; allowUpdate?: boolean; timeout: number; maxRows: number; store?: boolean },
      ) => {
        const result = await call('sparql:query', {
          kb: opts.kb,
          query,
          allowUpdate: Boolean(opts.allowUpdate),
          timeoutMs: opts.timeout,
          maxRows: opts.maxRows,
          target: opts.store ? 'store' : 'view',
        });
        out(result, () => {
          if (result.kind === 'select') printTable(result.rows);
          else if (result.kind === 'ask') console.log(String(result.boolean));
          else if (result.turtle !== undefined) process.stdout.write(result.turtle);
          if (result.truncated) console.log(truncationNote(result, opts.maxRows));
        });
      },
    );

  const fail = (message: string): never => {
    throw new CliError(message);
  };
  registerStoreCommands(program, { call, job, out, fail });
  registerWatchCommands(program, { call, getEngine, out, fail });

  const models = program
    .command('models')
    .description('local models: list, inspect, import, download, remove, use; inference servers: endpoint');
  models
    .command('list')
    .description('models in the models folder and the catalog')
    .action(async () => {
      const [files, catalog] = await Promise.all([call('models:list', {}), call('models:catalog', {})]);
      out({ files, catalog }, () => {
        printTable(files.map((f) => ({ file: f.file, kind: f.kind, size: formatBytes(f.sizeBytes) })));
        console.log('\nCatalog (download with `polyhop models download <id>`):');
        printTable(
          catalog.map((c) => ({
            id: c.id,
            role: c.role,
            tier: c.tier ?? '',
            size: formatBytes(c.sizeBytes),
            installed: c.installed ? 'yes' : '',
          })),
        );
      });
    });
  models
    .command('info <path>')
    .description('architecture, parameters, quantisation, context length and chat template of a model file')
    .action(async (path: string) => {
      const info = await call('models:inspect', { path: resolve(path) });
      out(info, () => {
        console.log(JSON.stringify(info, null, 2));
        if (info.chat) console.log(`chat wrapper: ${info.chat.wrapper}; ${chatReasoningLine(info.chat)}`);
      });
    });
  models
    .command('import <path>')
    .description('copy (or reference) a model file into the models folder')
    .option('--reference', 'keep it where it is')
    .action(async (path: string, opts: { reference?: boolean }) => {
      const file = await call('models:import', { path: resolve(path), mode: opts.reference ? 'reference' : 'copy' });
      out(file, () => console.log(`Imported ${file.file}`));
    });
  models
    .command('download <catalogId>')
    .description('download a catalog model (the only command that uses the network)')
    .action(async (catalogId: string) => {
      const result = await job('models:download', { catalogId });
      if (result.status !== 'done') throw new CliError(result.error?.message ?? `download ${result.status}`);
      out(result.result, () => console.log('Downloaded.'));
    });
  models
    .command('remove <file>')
    .description('delete a model from the models folder')
    .action(async (file: string) => {
      await call('models:remove', { file });
      out({ removed: file }, () => console.log(`Removed ${file}`));
    });
  models
    .command('use <role> <path>')
    .description('select the generation or embedding model (loads it to check it works, and remembers it)')
    .option('--gpu-layers <n>', '"auto" or a number', 'auto')
    .option('--context-size <n>', 'context size', (v) => Number.parseInt(v, 10))
    .option('--threads <n>', 'CPU threads', (v) => Number.parseInt(v, 10))
    .option('--sequences <n>', 'parallel sequences', (v) => Number.parseInt(v, 10))
    .action(
      async (
        role: string,
        path: string,
        opts: { gpuLayers: string; contextSize?: number; threads?: number; sequences?: number },
      ) => {
        if (role !== 'generation' && role !== 'embedding')
          throw new CliError('role must be "generation" or "embedding"');
        const status = await call('models:load', {
          role,
          path: resolve(path),
          gpuLayers: opts.gpuLayers === 'auto' ? 'auto' : Number.parseInt(opts.gpuLayers, 10),
          ...(opts.contextSize ? { contextSize: opts.contextSize } : {}),
          ...(opts.threads ? { threads: opts.threads } : {}),
          ...(opts.sequences ? { sequences: opts.sequences } : {}),
        });
        out(status, () =>
          console.log(
            `${role}: ${status.path}\n  backend ${status.backend}, ${status.gpuLayers}/${status.totalLayers} layers on GPU\n  ${status.explanation}`,
          ),
        );
      },
    );

  addEndpointCommands(models, {
    call,
    out,
    fail: (message) => {
      throw new CliError(message);
    },
  });

  // `eval`, not `bench`: `npm run bench` is the performance benchmarks.
  const evaluate = program.command('eval').description('evaluate strategies on a QA data set');
  evaluate
    .command('run')
    .description('build (or reuse) a KB from a data set and ask every question through each strategy')
    .requiredOption('--dataset <path>', 'data set file')
    .addOption(new Option('--format <format>', 'data set format').choices([...DATASET_FORMATS]).makeOptionMandatory())
    .option('--strategies <list>', 'comma-separated', 'dr,vector,llm-only')
    .option('--languages <list>', "comma-separated language codes (default: the data set's)")
    .option('--corpus <path>', 'a HippoRAG corpus to index instead of the questions’ own passages')
    .option('--limit <n>', 'questions', (v) => Number.parseInt(v, 10), 20)
    .addOption(
      new Option('--sample <how>', 'which questions --limit keeps').choices(['first', 'random']).default('first'),
    )
    .option('--baselines <list>', 'strategies Δ% compares against (default: vector,llm-only)')
    .option('--no-judge', 'skip LLM-as-judge')
    .option('--judge-model <gguf>', 'a second GGUF to judge with (default: the generation model)')
    .option(
      '--similarity-model <path>',
      'embedding model (ONNX folder or GGUF) for the similarity metric, e.g. all-MiniLM-L6-v2 (default: the KB embedder)',
    )
    .option('--graph <path>', 'MSE-KG graph file (default: Output.ttl beside the questions)')
    .requiredOption('--out <dir>', 'report folder (a killed run resumes from it)')
    .action(
      async (opts: {
        dataset: string;
        format: Request<'eval:run'>['format'];
        strategies: string;
        languages?: string;
        corpus?: string;
        limit: number;
        sample: 'first' | 'random';
        baselines?: string;
        judge: boolean;
        judgeModel?: string;
        similarityModel?: string;
        graph?: string;
        out: string;
      }) => {
        const result = await job('eval:run', {
          datasetPath: resolve(opts.dataset),
          format: opts.format,
          strategies: opts.strategies.split(',') as Request<'eval:run'>['strategies'],
          ...(opts.languages ? { languages: opts.languages.split(',') } : {}),
          ...(opts.corpus ? { corpusPath: resolve(opts.corpus) } : {}),
          ...(opts.graph ? { graphPath: resolve(opts.graph) } : {}),
          ...(opts.baselines ? { baselines: opts.baselines.split(',') as Request<'eval:run'>['strategies'] } : {}),
          ...(opts.judgeModel ? { judgeModel: { path: resolve(opts.judgeModel) } } : {}),
          ...(opts.similarityModel ? { similarityModel: { path: resolve(opts.similarityModel) } } : {}),
          judge: opts.judge,
          limit: opts.limit,
          sample: opts.sample,
          outDir: resolve(opts.out),
        });
        if (result.status !== 'done') throw new CliError(result.error?.message ?? `evaluation ${result.status}`);
        const report = await call('eval:report', { outDir: resolve(opts.out) });
        out(report, () => console.log(report.markdown));
      },
    );
  evaluate
    .command('report <dir>')
    .description('print the report of a finished run')
    .action(async (dir: string) => {
      const report = await call('eval:report', { outDir: resolve(dir) });
      out(report, () => console.log(report.markdown));
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help') return 0;
    if (code?.startsWith('commander.')) return 2;
    console.error(`polyhop: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    if (engine !== injected) await engine?.dispose();
  }
}

function formatBytes(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)} GB`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  return n > 0 ? `${Math.round(n / 1e3)} kB` : '-';
}

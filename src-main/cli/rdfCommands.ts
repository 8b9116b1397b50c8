import { Option, type Command } from 'commander';
import { resolve } from 'node:path';
import { RDF_FORMATS, type Request } from '../engine/api/contract.js';
import { CliError, type CliContext } from './CliContext.js';
import { missingVectorsHint, printTable, truncationNote } from './format.js';
import { waitForView } from './waitForView.js';

/** `polyhop export`, `import` and `sparql`: a KB's RDF view. */
export function registerRdfCommands(program: Command, { call, job, out, fail, storeSynced }: CliContext): void {
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
    .option(
      '--answers',
      "add every answer's PROV-O graph (named graphs in N-Quads; merged in Turtle and N-Triples)",
      false,
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
        answers: boolean;
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
          answers: opts.answers,
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
    .option('--allow-service', 'permit SERVICE clauses (a federated query reaches another server)')
    .option('--timeout <ms>', 'time limit', (v) => Number.parseInt(v, 10), 10_000)
    .option(
      '--load-timeout <ms>',
      'how long to wait for the in-memory view to load first',
      (v) => Number.parseInt(v, 10),
      1_800_000,
    )
    .option('--max-rows <n>', 'row cap', (v) => Number.parseInt(v, 10), 1000)
    .option('--store', "query the KB's external SPARQL store instead of the in-memory view (see `polyhop store`)")
    .action(
      async (
        query: string,
        opts: {
          kb: string;
          allowUpdate?: boolean;
          allowService?: boolean;
          timeout: number;
          loadTimeout: number;
          maxRows: number;
          store?: boolean;
        },
      ) => {
        if (!opts.store) await waitForView(opts.kb, { call, fail, timeoutMs: opts.loadTimeout });
        const result = await call('sparql:query', {
          kb: opts.kb,
          query,
          allowUpdate: Boolean(opts.allowUpdate),
          allowService: Boolean(opts.allowService),
          timeoutMs: opts.timeout,
          maxRows: opts.maxRows,
          target: opts.store ? 'store' : 'view',
        });
        if (result.storeCopy) console.error(`Warning: ${result.storeCopy.message}`);
        out(result, () => {
          if (result.kind === 'select') printTable(result.rows);
          else if (result.kind === 'ask') console.log(String(result.boolean));
          else if (result.turtle !== undefined) process.stdout.write(result.turtle);
          if (result.truncated) console.log(truncationNote(result, opts.maxRows));
        });
      },
    );
}

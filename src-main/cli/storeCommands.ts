import { Option, type Command } from 'commander';
import type { Method, Request, Responses, StoreStatus } from '../engine/api/contract.js';
import type { JobResult } from './runJob.js';

export interface StoreCommandContext {
  call: <M extends Method>(method: M, request: Request<M>) => Promise<Responses[M]>;
  job: <M extends Method>(method: M, request: Request<M>) => Promise<JobResult>;
  out: (value: unknown, human: () => void) => void;
  fail: (message: string) => never;
}

/** `polyhop store set|show|publish|sync|remove --kb NAME`: a KB's external SPARQL store. */
export function registerStoreCommands(program: Command, { call, job, out, fail }: StoreCommandContext): void {
  const store = program
    .command('store')
    .description(
      "publish a knowledge base to an external SPARQL 1.1 store and keep it in step (see README 'Scaling out')",
    );

  store
    .command('set')
    .description(
      'point a knowledge base at a store (the password comes from POLYHOP_STORE_PASSWORD or --password-stdin, never the command line)',
    )
    .requiredOption('--kb <name>', 'knowledge base')
    .requiredOption('--query-url <url>', 'SPARQL 1.1 query endpoint (Virtuoso: http://host:8890/sparql)')
    .option('--update-url <url>', 'SPARQL 1.1 Update endpoint (Virtuoso: …/sparql-auth; default: the query URL)')
    .option(
      '--graph-store-url <url>',
      'Graph Store HTTP Protocol endpoint (Virtuoso: …/sparql-graph-crud-auth; default: the query URL)',
    )
    .option('--graph <iri>', "the KB's named graph (default: <base IRI>graph)")
    .addOption(new Option('--auth <kind>', 'authentication').choices(['none', 'basic', 'digest']).default('none'))
    .option('--user <name>', 'user name for basic or digest auth')
    .option('--password-stdin', 'read the password from the first line of standard input')
    .option('--batch <quads>', 'quads per publishing request', (v) => Number.parseInt(v, 10))
    .option(
      '--timeout <ms>',
      'limit for one request to the store (a publishing batch, an update; default 300000)',
      (v) => Number.parseInt(v, 10),
    )
    .option('--no-auto-sync', 'sync only when asked (default: after every indexing run, import and removal)')
    .action(
      async (opts: {
        kb: string;
        queryUrl: string;
        updateUrl?: string;
        graphStoreUrl?: string;
        graph?: string;
        auth: 'none' | 'basic' | 'digest';
        user?: string;
        passwordStdin?: boolean;
        batch?: number;
        timeout?: number;
        autoSync: boolean;
      }) => {
        let auth: Request<'store:set'>['auth'] = { kind: 'none' };
        if (opts.auth !== 'none') {
          const username = opts.user ?? fail(`--auth ${opts.auth} needs --user`);
          const password = opts.passwordStdin ? await firstLineOfStdin() : process.env.POLYHOP_STORE_PASSWORD;
          auth = { kind: opts.auth, username, ...(password !== undefined ? { password } : {}) };
        }
        const status = await call('store:set', {
          kb: opts.kb,
          queryUrl: opts.queryUrl,
          ...(opts.updateUrl ? { updateUrl: opts.updateUrl } : {}),
          ...(opts.graphStoreUrl ? { graphStoreUrl: opts.graphStoreUrl } : {}),
          ...(opts.graph ? { graphIri: opts.graph } : {}),
          auth,
          ...(opts.batch ? { batchQuads: opts.batch } : {}),
          ...(opts.timeout !== undefined ? { requestTimeoutMs: opts.timeout } : {}),
          autoSync: opts.autoSync,
        });
        out(status, () => printStatus(status));
      },
    );

  for (const name of ['show', 'status']) {
    store
      .command(name)
      .description(
        name === 'show' ? "the KB's store and sync state (last sync, pending changes, last error)" : 'same as show',
      )
      .requiredOption('--kb <name>', 'knowledge base')
      .option(
        '--probe',
        "also count the statements in the store's graph, show its owner and check the credentials (an empty update)",
      )
      .action(async (opts: { kb: string; probe?: boolean }) => {
        const status = await call('store:show', { kb: opts.kb, probe: Boolean(opts.probe) });
        out(status, () => printStatus(status));
      });
  }

  for (const [name, method, what] of [
    ['publish', 'store:publish', "replace the store's graph with the whole knowledge base (full resync)"],
    ['sync', 'store:sync', 'send what changed since the last sync (resumes one cut short)'],
  ] as const) {
    const command = store.command(name).description(what).requiredOption('--kb <name>', 'knowledge base');
    if (method === 'store:publish')
      command.option(
        '--take-over',
        'publish even into a graph that another knowledge base owns, and own it from now on',
      );
    command.action(async (opts: { kb: string; takeOver?: boolean }) => {
      const result = await job(
        method,
        method === 'store:publish' ? { kb: opts.kb, takeOver: Boolean(opts.takeOver) } : { kb: opts.kb },
      );
      if (result.status !== 'done')
        fail(result.error ? `${result.error.code}: ${result.error.message}` : `${name} ${result.status}`);
      out(result.result, () => {
        const r = result.result as { mode: string; quads: number; documents: number; entities: number };
        console.log(
          r.mode === 'full'
            ? `Published ${r.quads.toLocaleString('en')} quads`
            : `Synced ${r.documents} documents and ${r.entities} entities (${r.quads.toLocaleString('en')} quads)`,
        );
      });
    });
  }

  store
    .command('remove')
    .description("forget the KB's store (its graph in the store is left as it is)")
    .requiredOption('--kb <name>', 'knowledge base')
    .action(async (opts: { kb: string }) => {
      const result = await call('store:remove', { kb: opts.kb });
      out(result, () => console.log(result.removed ? 'Removed' : 'No store was configured'));
    });
}

function printStatus(status: StoreStatus): void {
  if (!status.config) {
    console.log(
      `${status.kb}: no external store (set one with \`polyhop store set --kb "${status.kb}" --query-url …\`)`,
    );
    return;
  }
  const c = status.config;
  const auth =
    c.auth.kind === 'none'
      ? 'none'
      : `${c.auth.kind} as ${c.auth.username} (${c.auth.hasPassword ? 'password set' : 'no password'})`;
  const lines = [
    `query:   ${c.queryUrl}`,
    `update:  ${c.updateUrl}`,
    `graphs:  ${c.graphStoreUrl}`,
    `graph:   <${c.graphIri}>`,
    `auth:    ${auth}`,
    `auto:    ${c.autoSync ? 'sync after each change' : 'only when asked'}`,
    `timeout: ${c.requestTimeoutMs.toLocaleString('en')} ms per request`,
  ];
  const s = status.sync;
  if (s) {
    lines.push(
      `state:   ${s.fullNeeded ? 'full publish due' : `${s.pendingDocuments} documents and ${s.pendingEntities} entities to sync`}` +
        (status.jobId ? ' (running)' : ''),
    );
    lines.push(`synced:  ${s.syncedAt ?? 'never'}${s.publishedAt ? ` (published ${s.publishedAt})` : ''}`);
    if (s.lastError) lines.push(`error:   ${s.lastError}`);
  }
  if (status.storeQuads !== undefined)
    lines.push(`store:   ${status.storeQuads.toLocaleString('en')} statements in the graph`);
  if (status.probeError) lines.push(`store:   ${status.probeError}`);
  if (status.graphOwner)
    lines.push(
      'owner:   ' +
        (status.graphOwner.thisKb
          ? 'this knowledge base'
          : `the knowledge base "${status.graphOwner.name}" (id ${status.graphOwner.id}); publishing here needs --take-over`),
    );
  if (status.updateProbe)
    lines.push(
      `signin:  ${status.updateProbe.ok ? 'the update endpoint accepted the credentials (an empty INSERT DATA)' : status.updateProbe.error}`,
    );
  console.log(lines.join('\n'));
}

async function firstLineOfStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

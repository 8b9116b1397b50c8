import { Option, type Command } from 'commander';
import type { Method, Request, Responses } from '../engine/api/contract.js';
import { printTable } from './format.js';

export interface EndpointCommandsContext {
  call: <M extends Method>(method: M, request: Request<M>) => Promise<Responses[M]>;
  /** Prints `value` as JSON under `--json`, else runs `human`. */
  out: (value: unknown, human: () => void) => void;
  /** Sets the exit code of a command that ran but found a fault (a failed test). */
  fail: (message: string) => never;
}

const integer = (v: string): number => Number.parseInt(v, 10);

/** `polyhop models endpoint add|list|remove|test`: OpenAI-compatible inference servers. */
export function addEndpointCommands(models: Command, { call, out, fail }: EndpointCommandsContext): void {
  const endpoint = models
    .command('endpoint')
    .description(
      'OpenAI-compatible inference servers (llama-server, vLLM, Ollama, LM Studio): add, list, remove, test',
    );
  endpoint
    .command('add <id>')
    .description('add an inference server for generation or embeddings (its key is stored, never shown)')
    .addOption(new Option('--role <role>', 'what it serves').choices(['generation', 'embedding']).makeOptionMandatory())
    .requiredOption('--url <url>', 'API root, e.g. http://gpu1:8080/v1')
    .requiredOption('--model <name>', 'model name sent with each request (an id its /v1/models lists)')
    .addOption(
      new Option('--api-key <key>', 'bearer token (visible in the shell history; see --api-key-env)').conflicts(
        'apiKeyEnv',
      ),
    )
    .option('--api-key-env <var>', 'read the bearer token from this environment variable')
    .option('--concurrency <n>', 'calls it runs at once (its parallel slots; default 4)', integer)
    .action(
      async (
        id: string,
        opts: {
          role: 'generation' | 'embedding';
          url: string;
          model: string;
          apiKey?: string;
          apiKeyEnv?: string;
          concurrency?: number;
        },
      ) => {
        let apiKey = opts.apiKey;
        if (opts.apiKeyEnv !== undefined) {
          apiKey = process.env[opts.apiKeyEnv];
          if (!apiKey) fail(`--api-key-env ${opts.apiKeyEnv}: that environment variable is not set`);
        }
        const added = await call('endpoints:add', {
          id,
          role: opts.role,
          baseUrl: opts.url,
          model: opts.model,
          ...(apiKey ? { apiKey } : {}),
          ...(opts.concurrency !== undefined ? { concurrency: opts.concurrency } : {}),
        });
        out(added, () =>
          console.log(
            `Added ${added.role} server "${added.id}": ${added.baseUrl}, model ${added.model}` +
              `${added.hasApiKey ? ', with an API key' : ''} (test it: polyhop models endpoint test ${added.id})`,
          ),
        );
      },
    );
  endpoint
    .command('list')
    .description('inference servers with their health, served model and calls in flight')
    .action(async () => {
      const list = await call('endpoints:list', {});
      out(list, () => {
        printTable(
          list.map((e) => ({
            id: e.id,
            role: e.role,
            url: e.baseUrl,
            model: e.model,
            health: e.health,
            'served model': e.servedModel ?? '-',
            concurrency: e.concurrency,
            'in flight': e.inFlight,
          })),
        );
        for (const e of list) if (e.context) console.log(`${e.id} context: ${e.context}`);
        for (const e of list)
          if (e.slots !== undefined && e.slots < e.concurrency)
            console.log(`${e.id} runs ${e.slots} calls at once (its server's slots), not ${e.concurrency}`);
        for (const e of list) if (e.notice) console.log(`${e.id} last waited: ${e.notice}`);
      });
    });
  endpoint
    .command('remove <id>')
    .description('forget an inference server (and its key)')
    .action(async (id: string) => {
      await call('endpoints:remove', { id });
      out({ removed: id }, () => console.log(`Removed inference server "${id}"`));
    });
  endpoint
    .command('test <id>')
    .description(
      'tests the server: the models it serves, then one authenticated call of its role (a one-token completion, a one-input embedding)',
    )
    .action(async (id: string) => {
      const [probe, config] = await Promise.all([
        call('endpoints:test', { id }),
        call('endpoints:list', {}).then((list) => list.find((e) => e.id === id)),
      ]);
      out(probe, () => {
        if (probe.roleCall === null)
          return console.log(`"${id}" did not answer (${probe.latencyMs} ms): ${probe.error ?? 'unknown error'}`);
        console.log(`"${id}" lists: ${probe.servedModels.join(', ') || '(no models)'}`);
        console.log(
          probe.modelServed
            ? `The configured model "${config?.model}" is served.`
            : `The configured model "${config?.model}" is NOT among them: fix it with remove and add.`,
        );
        console.log(
          probe.roleCall.ok
            ? `As a ${probe.roleCall.role} server: ${probe.roleCall.what} (${probe.latencyMs} ms in all).`
            : `As a ${probe.roleCall.role} server it FAILED ${probe.roleCall.what}: ${probe.roleCall.error ?? 'unknown error'}`,
        );
      });
      if (probe.roleCall === null) fail(`inference server "${id}" did not answer`);
      if (!probe.ok)
        fail(`inference server "${id}" failed ${probe.roleCall?.what ?? 'its call'}: ${probe.error ?? ''}`);
      if (!probe.modelServed) fail(`inference server "${id}" does not serve "${config?.model}"`);
    });
}

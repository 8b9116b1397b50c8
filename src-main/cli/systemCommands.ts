import type { Command } from 'commander';
import type { Engine } from '../engine/api/Engine.js';
import type { CliContext } from './CliContext.js';
import { printDoctor } from './format.js';

/** `polyhop doctor`, `serve` and `mcp`: the system report and the two long-running servers. */
export function registerSystemCommands(
  program: Command,
  { call, getEngine, out }: CliContext,
  serve: (engine: Engine, port: number | undefined) => Promise<void>,
): void {
  program
    .command('doctor')
    .description('report versions, the llama.cpp backend and GPUs, models found and the data directory')
    .action(async () => {
      const report = await call('system:doctor', {});
      const { ocrLanguages } = await call('system:getSettings', {});
      out(report, () => printDoctor(report, ocrLanguages));
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
      const { runMcpStdio, startMcpHttp } = await import('../mcp.js');
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
}

/**
 * `polyhop <command>`: the CLI front door. Every command is one or more Api calls on an
 * in-process engine; long ones are jobs whose progress renders as bars on stderr. This file only
 * wires: each group of commands is a module in cli/, registered in the order `--help` lists them.
 */
import { Command } from 'commander';
import type { Engine } from './engine/api/Engine.js';
import { logUnhandledRejections } from './engine/api/logUnhandledRejections.js';
import { registerAskCommand } from './cli/askCommand.js';
import { registerChatCommand } from './cli/chatCommand.js';
import { createCliContext } from './cli/CliContext.js';
import { onStoreSyncFailed } from './cli/finishStoreSync.js';
import { registerDocumentCommands } from './cli/documentCommands.js';
import { registerEvalCommands } from './cli/evalCommands.js';
import { registerKbCommands } from './cli/kbCommands.js';
import { registerModelCommands } from './cli/modelCommands.js';
import { registerRdfCommands } from './cli/rdfCommands.js';
import { registerSourceCommand } from './cli/sourceCommand.js';
import { registerStoreCommands } from './cli/storeCommands.js';
import { registerSystemCommands } from './cli/systemCommands.js';
import { registerWatchCommands } from './cli/watchCommands.js';

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

export async function runCli({ appRoot, argv, serve, engine: injected, input }: CliOptions): Promise<number> {
  // Browser mode runs here too: one escaped rejection must not end the server and its jobs.
  logUnhandledRejections();
  const program = new Command('polyhop')
    .description('Offline knowledge-graph question answering over your documents with local models.')
    .option('--data-dir <dir>', 'data directory (default: POLYHOP_DATA_DIR or the per-user data folder)')
    .option('--models-dir <dir>', 'models folder (default: POLYHOP_MODELS_DIR or <app>/models)')
    .option('--json', 'print machine-readable JSON')
    .showHelpAfterError()
    .exitOverride();
  const { ctx, dispose } = createCliContext(program, appRoot, injected);

  registerSystemCommands(program, ctx, serve);
  registerKbCommands(program, ctx);
  registerDocumentCommands(program, ctx);
  registerSourceCommand(program, ctx);
  registerAskCommand(program, ctx);
  registerChatCommand(program, () => ({
    job: (method, request) => ctx.job(method, request),
    input: input ?? process.stdin,
    storeSynced: ctx.storeSynced,
    onStoreSyncFailed: async (kb, report) => onStoreSyncFailed(await ctx.getEngine(), kb, report),
  }));
  registerRdfCommands(program, ctx);
  registerStoreCommands(program, ctx);
  registerWatchCommands(program, ctx);
  registerModelCommands(program, ctx);
  registerEvalCommands(program, ctx);

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
    await dispose();
  }
}

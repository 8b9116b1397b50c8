import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian's server binary (package virtuoso-opensource; `.ci/run` installs it). */
export const VIRTUOSO_BINARY = '/usr/bin/virtuoso-t';

export interface VirtuosoInstance {
  readonly httpPort: number;
  readonly sqlPort: number;
  /** Query endpoint (anonymous, read-only). */
  readonly queryUrl: string;
  /** Query and update endpoint behind digest auth (dba/dba on this throwaway database). */
  readonly authUrl: string;
  /** Graph Store HTTP Protocol endpoint behind digest auth. */
  readonly graphStoreUrl: string;
  readonly user: string;
  readonly password: string;
  /** Stops the server (the database stays, so {@link start} brings the same data back). */
  stop(): Promise<void>;
  /** Starts it again on the same ports and database after {@link stop}. */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  dispose(): Promise<void>;
}

/** A free loopback TCP port (bound then released). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * `[SPARQL]` limits exactly as Debian's packaged /etc/virtuoso-opensource-7/virtuoso.ini sets them
 * (what a user running the package gets; issue 24): Polyhop pages past ResultSetMaxRows or reports
 * the cut itself, so no test raises them.
 */
const DEBIAN_SPARQL_LIMITS = 'ResultSetMaxRows = 10000\nMaxQueryCostEstimationTime = 400\nMaxQueryExecutionTime = 60';

/** `buffers`: 8 KiB pages of cache (Virtuoso's guide: about 2/3 of the memory it may use; a bench of millions of quads wants far more than a test). */
function iniText(dir: string, sqlPort: number, httpPort: number, buffers: number): string {
  // Only what differs from Virtuoso's built-in defaults: every file in `dir`, both ports on
  // loopback, no plugins, and Debian's result limits.
  return `[Database]
DatabaseFile = ${dir}/virtuoso.db
ErrorLogFile = ${dir}/virtuoso.log
LockFile = ${dir}/virtuoso.lck
TransactionFile = ${dir}/virtuoso.trx
xa_persistent_file = ${dir}/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = ${dir}/virtuoso-temp.db
TransactionFile = ${dir}/virtuoso-temp.trx
Striping = 0

[Parameters]
ServerPort = 127.0.0.1:${sqlPort}
DisableUnixSocket = 1
CheckpointInterval = 60
CaseMode = 2
DirsAllowed = ., ${dir}
NumberOfBuffers = ${buffers}
MaxDirtyBuffers = ${Math.round(buffers * 0.75)}
MaxQueryMem = 1G
ThreadsPerQuery = 2

[HTTPServer]
ServerPort = 127.0.0.1:${httpPort}
ServerRoot = ${dir}
ServerThreads = 10
MaxKeepAlives = 10
KeepAliveTimeout = 10
Charset = UTF-8
EnabledGzipContent = 0

[SPARQL]
${DEBIAN_SPARQL_LIMITS}
`;
}

/**
 * Starts a Virtuoso Open Source server of its own: a fresh database and free ports in a temporary
 * folder, on loopback. Waits (generously: the first start creates the database, ~30 s on a quiet
 * machine and far more on a busy one) until `/sparql` answers.
 */
export async function startVirtuoso(
  options: { readyTimeoutMs?: number; buffers?: number } = {},
): Promise<VirtuosoInstance> {
  const readyTimeoutMs = options.readyTimeoutMs ?? 280_000;
  if (!existsSync(VIRTUOSO_BINARY)) {
    throw new Error(
      `Virtuoso Open Source is not installed (no ${VIRTUOSO_BINARY}): apt-get install virtuoso-opensource (.ci/run does); the external-store tests start their own instance`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-virtuoso-'));
  const sqlPort = await freePort();
  const httpPort = await freePort();
  writeFileSync(join(dir, 'virtuoso.ini'), iniText(dir, sqlPort, httpPort, options.buffers ?? 20_000));
  const base = `http://127.0.0.1:${httpPort}`;
  let child: ChildProcess | null = null;

  const start = async (): Promise<void> => {
    const proc = spawn(VIRTUOSO_BINARY, ['-c', join(dir, 'virtuoso.ini'), '-f'], { cwd: dir, stdio: 'ignore' });
    child = proc;
    let exited: string | null = null;
    proc.once('exit', (code, signal) => {
      exited = `exited (code ${code}, signal ${signal})`;
    });
    proc.once('error', (error) => {
      exited = error.message;
    });
    const deadline = Date.now() + readyTimeoutMs;
    for (;;) {
      if (exited) throw new Error(`virtuoso ${exited}; log:\n${tailOfLog(dir)}`);
      try {
        const response = await fetch(`${base}/sparql?query=${encodeURIComponent('ASK {}')}`, {
          headers: { accept: 'application/sparql-results+json' },
          signal: AbortSignal.timeout(10_000),
        });
        await response.arrayBuffer();
        if (response.ok) return;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) {
        proc.kill('SIGKILL');
        throw new Error(
          `virtuoso did not answer on ${base}/sparql within ${readyTimeoutMs} ms; log:\n${tailOfLog(dir)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };

  const stop = async (): Promise<void> => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    // Killed outright: the transaction log replays on the next start, as after a crash.
    proc.kill('SIGKILL');
    await exited;
    rmSync(join(dir, 'virtuoso.lck'), { force: true });
  };

  await start();
  return {
    httpPort,
    sqlPort,
    queryUrl: `${base}/sparql`,
    authUrl: `${base}/sparql-auth`,
    graphStoreUrl: `${base}/sparql-graph-crud-auth`,
    user: 'dba',
    password: 'dba',
    stop,
    start,
    dispose: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function tailOfLog(dir: string): string {
  try {
    return readFileSync(join(dir, 'virtuoso.log'), 'utf8').split('\n').slice(-20).join('\n');
  } catch {
    return '(no log)';
  }
}

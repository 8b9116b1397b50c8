let installed = false;

/**
 * Makes a promise rejection that nobody handled a logged error instead of the end of the process
 * (Node's default since v15, and in the desktop app the process is the whole app). Such a
 * rejection is a bug and is fixed where it starts; this only keeps one escaped rejection from
 * taking every open KB, job and window down with it. Front doors call it once; repeated calls
 * install nothing more.
 */
export function logUnhandledRejections(log: (message: string, reason: unknown) => void = console.error): void {
  if (installed) return;
  installed = true;
  process.on('unhandledRejection', (reason) =>
    log('[polyhop] BUG: a promise rejection was not handled (the engine carries on):', reason),
  );
}

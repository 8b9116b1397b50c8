/** The message of a caught value, for wrapping foreign errors into a PolyhopError. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

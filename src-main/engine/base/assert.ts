import { BugIndicatingError } from './errors.js';

/**
 * Exhaustiveness check for switches over unions:
 * `default: throw missingCase(kind);` fails to compile when a case is added and not handled.
 */
export function missingCase(value: never): BugIndicatingError {
  return new BugIndicatingError(`Unhandled case: ${String(value)}`);
}

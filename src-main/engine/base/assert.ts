import { BugIndicatingError } from './errors.js';

/** Narrowing assertion for invariants; a failure is a bug, not a user error. */
export function strictAssert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new BugIndicatingError(message);
}

/**
 * Exhaustiveness check for switches over unions:
 * `default: throw missingCase(kind);` fails to compile when a case is added and not handled.
 */
export function missingCase(value: never): BugIndicatingError {
  return new BugIndicatingError(`Unhandled case: ${String(value)}`);
}

import { PolyhopError } from '../base/errors.js';

/** The one error shape for a document we cannot use: `BAD_INPUT`, `<file>: <reason>`, details `{path, reason}`. */
export function badInput(
  path: string,
  reason: string,
  options: { cause?: unknown; details?: Record<string, unknown> } = {},
): PolyhopError {
  return new PolyhopError('BAD_INPUT', `${path}: ${reason}`, {
    details: { ...options.details, path, reason },
    cause: options.cause,
  });
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
}

import { expect } from 'vitest';
import { PolyhopError } from '../../../src-main/engine/base/errors.js';
import { loadDocument, type LoadDocumentOptions } from '../../../src-main/engine/ingest/index.js';

/** Loads and returns the BAD_INPUT error, checking its shape: `<path>: <reason>`, details {path, reason}. */
export async function refusal(path: string, options?: LoadDocumentOptions): Promise<PolyhopError> {
  const error = await loadDocument(path, options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `${path} should be refused`).toBeInstanceOf(PolyhopError);
  const e = error as PolyhopError;
  expect(e.code).toBe('BAD_INPUT');
  expect(e.details['path']).toBe(path);
  expect(e.message).toBe(`${path}: ${String(e.details['reason'])}`);
  return e;
}

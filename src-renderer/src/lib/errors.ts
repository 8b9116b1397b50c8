import { ApiError } from '../../api/index.js';

/** Anything thrown, as the ApiError shape the error views render. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ApiError({ code: 'INTERNAL', message, details: {} });
}

/** A user cancel is not an error (STYLE: keep cancellation apart). */
export function isCancelled(error: unknown): boolean {
  return error instanceof ApiError && error.code === 'CANCELLED';
}

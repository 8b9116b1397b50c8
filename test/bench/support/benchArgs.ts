/** Helpers the benchmarks share: numeric options (percentiles: base/quantile.ts). */

/** The number after `name` in `args`, else `fallback`; a missing, non-positive (or, with `integer`, fractional) value throws. */
export function numberArg(
  args: readonly string[],
  name: string,
  fallback: number,
  options: { integer?: boolean } = { integer: true },
): number {
  const i = args.indexOf(name);
  const value = i >= 0 ? Number(args[i + 1]) : fallback;
  const ok = options.integer ? Number.isInteger(value) : Number.isFinite(value);
  if (!ok || value <= 0) throw new Error(`${name} must be a positive ${options.integer ? 'integer' : 'number'}`);
  return value;
}

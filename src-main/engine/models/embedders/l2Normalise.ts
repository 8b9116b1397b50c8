/** Scales `v` in place to unit length (a zero vector stays zero) and returns it. */
export function l2Normalise(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  if (sum === 0) return v;
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) * inv;
  return v;
}

import { normalRandom } from '../fixtures/tinyBert.js';

/**
 * Anisotropy as real sentence embeddings have it: every vector leans on one shared direction, so
 * unrelated texts still have a high cosine. multilingual-e5's model card says its cosine scores
 * lie mostly between 0.7 and 1.0 (it was trained with a low contrastive temperature); a previous
 * session measured a mean pairwise cosine of 0.78 on its embeddings. Sign bits of such vectors are mostly
 * the shared direction's, which is what the KB's centred codes are for.
 *
 * @example
 * const lean = sharedDirection(384, 0.78, 9);
 * const anisotropic = lean(isotropicUnitVector);
 */
export function sharedDirection(
  dimension: number,
  meanCosine: number,
  seed: number,
): (unit: Float32Array) => Float32Array {
  const random = normalRandom(seed);
  const direction = Float32Array.from({ length: dimension }, () => random());
  const norm = Math.hypot(...direction);
  // For independent unit vectors u, v: cos(a·d + b·u, a·d + b·v) ≈ a² when a² + b² = 1.
  const a = Math.sqrt(meanCosine) / norm;
  const b = Math.sqrt(1 - meanCosine);
  return (unit) => {
    const out = new Float32Array(dimension);
    let sum = 0;
    for (let i = 0; i < dimension; i++) {
      out[i] = a * (direction[i] as number) + b * (unit[i] as number);
      sum += (out[i] as number) * (out[i] as number);
    }
    const length = Math.sqrt(sum);
    for (let i = 0; i < dimension; i++) out[i]! /= length;
    return out;
  };
}

/**
 * Recall@k of supporting passages: the share of the gold supporting passages found among the
 * first `k` distinct passages the answer cites (in evidence rank order). Undefined when the
 * dataset marks no supporting passage for the question.
 */
export function retrievalRecall(
  citedPassageIds: readonly string[],
  supportingPassageIds: readonly string[] | undefined,
  k: number,
): number | undefined {
  if (!supportingPassageIds || supportingPassageIds.length === 0) return undefined;
  const top = new Set<string>();
  for (const id of citedPassageIds) {
    if (top.size >= k) break;
    top.add(id);
  }
  const gold = new Set(supportingPassageIds);
  let found = 0;
  for (const id of gold) if (top.has(id)) found++;
  return found / gold.size;
}

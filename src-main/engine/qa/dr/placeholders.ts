/** A decomposed question triple; a term is a KB entity name or a placeholder for an unknown one. */
export interface QueryTriple {
  subject: string;
  relation: string;
  object: string;
}

/** Placeholders look like `?X`, `?wife`, or a bare single capital `X` (the paper writes "Ithaca HAS_KING X"). */
export function isPlaceholder(term: string): boolean {
  const t = term.trim();
  return /^\?[\p{L}\p{N}_]+$/u.test(t) || /^[A-Z]$/.test(t);
}

/** `?X` and `X` are the same placeholder. */
export function placeholderKey(term: string): string {
  return term.trim().replace(/^\?/, '').toUpperCase();
}

/** Replaces every occurrence of `placeholder` in the triples with `value` (the resolution is propagated). */
export function propagate(triples: readonly QueryTriple[], placeholder: string, value: string): QueryTriple[] {
  const key = placeholderKey(placeholder);
  const sub = (term: string): string => (isPlaceholder(term) && placeholderKey(term) === key ? value : term);
  return triples.map((t) => ({ subject: sub(t.subject), relation: t.relation, object: sub(t.object) }));
}

export interface ResolutionStep {
  /** Index of the triple in decomposition order. */
  index: number;
  /** The known term that anchors retrieval. */
  anchor: string;
  /** The placeholder this step resolves. */
  placeholder: string;
}

/**
 * The next triple to resolve: the first, in decomposition order, with one known term and one
 * placeholder. `null` when nothing is left or every remaining triple has two unknowns (the
 * decomposition cannot be grounded further).
 */
export function nextResolution(triples: readonly QueryTriple[]): ResolutionStep | null {
  for (const [index, t] of triples.entries()) {
    const s = isPlaceholder(t.subject);
    const o = isPlaceholder(t.object);
    if (s !== o) return s ? { index, anchor: t.object.trim(), placeholder: t.subject.trim() } : { index, anchor: t.subject.trim(), placeholder: t.object.trim() };
  }
  return null;
}

/** Placeholders still present, in order of first appearance. */
export function openPlaceholders(triples: readonly QueryTriple[]): string[] {
  const seen = new Map<string, string>();
  for (const t of triples) for (const term of [t.subject, t.object]) if (isPlaceholder(term) && !seen.has(placeholderKey(term))) seen.set(placeholderKey(term), term.trim());
  return [...seen.values()];
}

/** Keeps decomposition triples with all three parts non-empty; drops exact duplicates. */
export function cleanDecomposition(triples: readonly QueryTriple[]): QueryTriple[] {
  const seen = new Set<string>();
  const out: QueryTriple[] = [];
  for (const t of triples) {
    const c = { subject: t.subject.trim(), relation: t.relation.trim(), object: t.object.trim() };
    if (!c.relation || !c.subject || !c.object) continue;
    const key = `${c.subject}\u0000${c.relation}\u0000${c.object}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(c);
  }
  return out;
}

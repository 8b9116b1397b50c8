/** A decomposed question triple; a term is a KB entity name or a placeholder for an unknown one. */
export interface QueryTriple {
  subject: string;
  relation: string;
  object: string;
}

/**
 * The one place that reads placeholder spellings. Small models write `?X`, `?wife`, the paper's
 * bare `X`, `[X]`, `<X>`, `{X}`, a lone `?` or the word "unknown". Returns the placeholder's name
 * (upper case, `?` dropped), `''` for an anonymous one (`?`, "unknown"), `null` for an entity name.
 */
export function placeholderName(term: string): string | null {
  let t = term.trim();
  const bracketed = /^(?:\[(.*)\]|<(.*)>|\{(.*)\})$/su.exec(t);
  if (bracketed) t = (bracketed[1] ?? bracketed[2] ?? bracketed[3] ?? '').trim();
  if (t === '?' || /^unknown$/i.test(t)) return '';
  if (/^\?[\p{L}\p{N}_]+$/u.test(t)) return t.slice(1).toUpperCase();
  if (/^[A-Z]$/.test(t)) return t;
  // `[X]` also admits a lower-case or multi-letter name: the brackets already say "placeholder".
  if (bracketed && /^[\p{L}\p{N}_]+$/u.test(t)) return t.toUpperCase();
  return null;
}

export function isPlaceholder(term: string): boolean {
  return placeholderName(term) !== null;
}

/** Replaces every occurrence of `placeholder` in the triples with `value` (the resolution is propagated). */
export function propagate(triples: readonly QueryTriple[], placeholder: string, value: string): QueryTriple[] {
  const name = placeholderName(placeholder);
  const sub = (term: string): string => (name !== null && placeholderName(term) === name ? value : term);
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
 * The next triple to resolve: the first, in decomposition order and not in `attempted`, with one
 * known term and one placeholder. `null` when none is left: what remains either waits for a
 * placeholder no triple could resolve or has two unknowns.
 */
export function nextResolution(
  triples: readonly QueryTriple[],
  attempted: ReadonlySet<number> = new Set(),
): ResolutionStep | null {
  for (const [index, t] of triples.entries()) {
    if (attempted.has(index)) continue;
    const s = isPlaceholder(t.subject);
    const o = isPlaceholder(t.object);
    if (s !== o)
      return s
        ? { index, anchor: t.object.trim(), placeholder: t.subject.trim() }
        : { index, anchor: t.subject.trim(), placeholder: t.object.trim() };
  }
  return null;
}

/** Placeholders still present, in order of first appearance. */
export function openPlaceholders(triples: readonly QueryTriple[]): string[] {
  const seen = new Map<string, string>();
  for (const t of triples) {
    for (const term of [t.subject, t.object]) {
      const name = placeholderName(term);
      if (name !== null && !seen.has(name)) seen.set(name, term.trim());
    }
  }
  return [...seen.values()];
}

/** A triple never tried, and the placeholders it still waits for. */
export interface SkippedTriple {
  triple: QueryTriple;
  waitingFor: string[];
}

/** Triples not in `attempted` that still hold placeholders: they depend on one no triple resolved. */
export function skippedTriples(triples: readonly QueryTriple[], attempted: ReadonlySet<number>): SkippedTriple[] {
  return triples.flatMap((triple, index) => {
    const waitingFor = attempted.has(index) ? [] : openPlaceholders([triple]);
    return waitingFor.length > 0 ? [{ triple, waitingFor }] : [];
  });
}

const FRESH_NAMES = ['X', 'Y', 'Z', 'W', 'V', 'U', 'T', 'S'];

/**
 * Keeps decomposition triples with all three parts non-empty, writes every placeholder as `?NAME`
 * and drops exact duplicates. An anonymous placeholder (`?`, "unknown") in object position is a
 * new unknown; in subject position it continues the chain, i.e. it is the latest unknown an earlier
 * triple introduced ("Ithaca HAS_KING ?", "? HAS_WIFE ?" reads as ?X then ?X HAS_WIFE ?Y).
 */
export function cleanDecomposition(triples: readonly QueryTriple[]): QueryTriple[] {
  const used = new Set<string>();
  for (const t of triples)
    for (const term of [t.subject, t.object]) if (placeholderName(term)) used.add(placeholderName(term) as string);
  let fresh = 0;
  const freshName = (): string => {
    for (;;) {
      const name = FRESH_NAMES[fresh] ?? `P${fresh - FRESH_NAMES.length + 1}`;
      fresh++;
      if (!used.has(name)) return (used.add(name), name);
    }
  };
  let latest: string | null = null;
  const canonical = (term: string, position: 'subject' | 'object'): string => {
    const name = placeholderName(term);
    if (name === null) return term.trim();
    const resolved = name !== '' ? name : position === 'subject' && latest !== null ? latest : freshName();
    latest = resolved;
    return `?${resolved}`;
  };

  const seen = new Set<string>();
  const out: QueryTriple[] = [];
  for (const t of triples) {
    if (!t.relation.trim() || !t.subject.trim() || !t.object.trim()) continue;
    const subject = canonical(t.subject, 'subject');
    const c = { subject, relation: t.relation.trim(), object: canonical(t.object, 'object') };
    const key = `${c.subject}\u0000${c.relation}\u0000${c.object}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(c);
  }
  return out;
}

const NO_VALUE = /^(?:none|null|n\/a|unknown|not (?:found|known|stated|mentioned)|-+)$/i;

/**
 * A resolved value as the model wrote it, made usable: quotes and a final full stop dropped;
 * `null` when it is empty, a placeholder or a "none"/"unknown". A "(Type)" suffix copied from a
 * candidate label stays here; grounding tries the name without it (see Retriever.groundEntity).
 */
export function cleanResolvedValue(value: string | null): string | null {
  if (value === null) return null;
  const v = value.trim().replace(/^["'“”‘’«»\s]+|["'“”‘’«».\s]+$/gu, '');
  return v && !isPlaceholder(v) && !NO_VALUE.test(v) ? v : null;
}

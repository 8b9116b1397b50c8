/** One piece of evidence while a strategy works; becomes a contract `Evidence` with citations at the end. */
export interface EvidenceItem {
  kind: 'summary' | 'triple' | 'chunk';
  /** Entity id (summary), triple id or chunk id. */
  id: number;
  /** Entity name, verbalised triple, or "document title #ord". */
  label: string;
  text: string;
  score: number;
  /** Provenance chunks, most relevant first; empty for imported RDF. */
  chunkIds: number[];
  /** A summary that is one of the entity's partial summaries: its id (kb/PartialSummaryRepository.ts). */
  part?: number;
}

/**
 * Evidence accumulated up to a cap, first come first kept, without duplicates. What did not fit
 * is remembered so the trace can show evidence kept and dropped.
 */
export class EvidencePool {
  readonly #cap: number;
  readonly #items: EvidenceItem[] = [];
  readonly #keys = new Set<string>();
  readonly #dropped: EvidenceItem[] = [];

  constructor(cap = Number.POSITIVE_INFINITY) {
    this.#cap = cap;
  }

  /** Adds the item unless already present or the pool is full. Returns whether it was added. */
  add(item: EvidenceItem): boolean {
    const key = evidenceKey(item);
    if (this.#keys.has(key)) return false;
    if (this.#items.length >= this.#cap) {
      this.#dropped.push(item);
      return false;
    }
    this.#keys.add(key);
    this.#items.push(item);
    return true;
  }

  has(item: Pick<EvidenceItem, 'kind' | 'id' | 'part'>): boolean {
    return this.#keys.has(evidenceKey(item));
  }

  get size(): number {
    return this.#items.length;
  }

  get items(): readonly EvidenceItem[] {
    return this.#items;
  }

  get dropped(): readonly EvidenceItem[] {
    return this.#dropped;
  }
}

export function evidenceKey(item: Pick<EvidenceItem, 'kind' | 'id' | 'part'>): string {
  return item.part === undefined ? `${item.kind}:${item.id}` : `${item.kind}:${item.id}:part:${item.part}`;
}

/** Compact form for the trace. */
export function evidenceBrief(item: EvidenceItem): { kind: string; id: number; label: string; score: number } {
  return { kind: item.kind, id: item.id, label: item.label, score: roundScore(item.score) };
}

/** Four decimals: enough to compare scores in the trace, short enough to read. */
export function roundScore(score: number): number {
  return Math.round(score * 1e4) / 1e4;
}

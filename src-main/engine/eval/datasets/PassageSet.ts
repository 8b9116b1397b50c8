import { hashParts } from '../../base/hash.js';
import type { EvalPassage } from '../types.js';

/**
 * The passages of a dataset, deduplicated by (title, text). Ids are the titles, since the
 * multi-hop datasets mark supporting facts by title; a title seen with a second, different text
 * gets `title#2`, and so on.
 */
export class PassageSet {
  readonly #byContent = new Map<string, EvalPassage>();
  readonly #byTitle = new Map<string, EvalPassage[]>();
  readonly #ids = new Set<string>();
  readonly passages: EvalPassage[] = [];

  /** Adds a passage (or finds the identical one) and returns its id. */
  add(title: string, text: string): string {
    const key = hashParts([title, text]);
    const known = this.#byContent.get(key);
    if (known) return known.id;
    let id = title;
    for (let n = 2; this.#ids.has(id); n++) id = `${title}#${n}`;
    const passage: EvalPassage = { id, title, text };
    this.#ids.add(id);
    this.#byContent.set(key, passage);
    this.passages.push(passage);
    const sameTitle = this.#byTitle.get(title) ?? [];
    sameTitle.push(passage);
    this.#byTitle.set(title, sameTitle);
    return id;
  }

  /** The id of a passage known by content, else of the first passage with that title. */
  find(title: string, text?: string): string | undefined {
    if (text !== undefined) {
      const exact = this.#byContent.get(hashParts([title, text]));
      if (exact) return exact.id;
    }
    return this.#byTitle.get(title)?.[0]?.id;
  }

  get size(): number {
    return this.passages.length;
  }
}

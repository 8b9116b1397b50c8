/** Disjoint sets over numeric ids (path halving + union by size), for transitive entity merges. */
export class UnionFind {
  readonly #parent = new Map<number, number>();
  readonly #size = new Map<number, number>();

  find(x: number): number {
    if (!this.#parent.has(x)) {
      this.#parent.set(x, x);
      this.#size.set(x, 1);
    }
    let node = x;
    while (this.#parent.get(node) !== node) {
      const grand = this.#parent.get(this.#parent.get(node)!)!;
      this.#parent.set(node, grand);
      node = grand;
    }
    return node;
  }

  union(a: number, b: number): void {
    let ra = this.find(a);
    let rb = this.find(b);
    if (ra === rb) return;
    if (this.#size.get(ra)! < this.#size.get(rb)!) [ra, rb] = [rb, ra];
    this.#parent.set(rb, ra);
    this.#size.set(ra, this.#size.get(ra)! + this.#size.get(rb)!);
  }

  /** Sets with more than one member, each sorted ascending, ordered by smallest member. */
  groups(): number[][] {
    const byRoot = new Map<number, number[]>();
    for (const x of this.#parent.keys()) {
      const root = this.find(x);
      byRoot.set(root, [...(byRoot.get(root) ?? []), x]);
    }
    return [...byRoot.values()]
      .filter((g) => g.length > 1)
      .map((g) => g.sort((a, b) => a - b))
      .sort((a, b) => a[0]! - b[0]!);
  }
}

/** Paths into a JSON reply, and the places in it a test model may change (UncooperativeLlm, grammarValues). */

/** A place in a JSON value: object keys and array indexes from the root. */
export type Path = (string | number)[];
export interface Site {
  path: Path;
  node: unknown;
  key: string | number | undefined;
  parent: unknown;
}

/** Every array, string, boolean and number of a JSON value, outermost first. */
export function* sites(value: unknown, path: Path = [], key?: string | number, parent?: unknown): Generator<Site> {
  if (Array.isArray(value)) {
    yield { path, node: value, key, parent };
    // Items of a string array take the array's key (descriptions, summaries).
    for (let i = 0; i < value.length; i++)
      yield* sites(value[i], [...path, i], typeof value[i] === 'string' ? key : i, value);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) yield* sites(v, [...path, k], k, value);
  } else if (typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number') {
    yield { path, node: value, key, parent };
  }
}

export function hasNumericId(item: unknown): item is { id: number } {
  return !!item && typeof item === 'object' && typeof (item as { id?: unknown }).id === 'number';
}

/** Every list emptied and every text blanked, in place (an empty reply). */
export function emptied(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  for (const [k, v] of Object.entries(node)) {
    const o = node as Record<string, unknown>;
    if (Array.isArray(v)) o[k] = [];
    else if (typeof v === 'string') o[k] = '';
    else emptied(v);
  }
}

/** The item of the innermost array on a path (the batch item a change hits), as it is now. */
export function batchItem(root: unknown, path: Path): unknown {
  for (let n = path.length; n > 0; n--)
    if (typeof path[n - 1] === 'number') return structuredClone(at(root, path.slice(0, n)));
  return undefined;
}

/** The value at `path`; undefined where the path leaves the value (another item may lack an optional field). */
export function at(root: unknown, path: Path): unknown {
  return path.reduce<unknown>((node, k) => (node as Record<string | number, unknown> | undefined)?.[k], root);
}

export function setAt(root: unknown, path: Path, value: unknown): void {
  (at(root, path.slice(0, -1)) as Record<string | number, unknown>)[path.at(-1)!] = value;
}

export const jsonPath = (path: Path): string =>
  `$${path.map((k) => (typeof k === 'number' ? `[${k}]` : `.${k}`)).join('')}`;

import type { z } from 'zod';
import { zodJsonSchema, type JsonSchema } from '../../src-main/engine/models/grammarSchema.js';
import { at, sites, type Path } from './replyPaths.js';

/**
 * How a test model treats the schema of a JSON call:
 * - `grammar`: as a local model under node-llama-cpp, which samples under the grammar LlamaCppLlm
 *   makes of the schema (`zodJsonSchema(schema).grammar`): where a field has an `enum` or `const`,
 *   it can only write one of those values (the wrong one, maybe: another item's name), never
 *   another string, even where zod would accept any (`keyOneOf`);
 * - `ignored`: as an inference server that does not enforce the schema: it writes anything, and
 *   only the caller's zod validation afterwards stands between that and the pipeline.
 */
export type SchemaEnforcement = 'grammar' | 'ignored';

/** A value written where the grammar allows other values only. */
export interface GrammarViolation {
  path: Path;
  written: unknown;
  allowed: readonly unknown[];
}

/**
 * The closed value sets (`enum`, `const`) of a call's grammar, read along a reply: what a
 * grammar-bound model may write at each place. Field names play no part; only the schema does.
 */
export class GrammarValues {
  readonly #root: JsonSchema;

  constructor(schema: z.ZodType) {
    this.#root = zodJsonSchema(schema).grammar;
  }

  /**
   * The values the grammar allows at `path` of `reply` (a leaf: string, number, boolean, null),
   * or undefined where it lets the model write any value of the leaf's type.
   */
  allowedAt(reply: unknown, path: Path): readonly unknown[] | undefined {
    let nodes = this.#applicable([this.#root], reply);
    let value = reply;
    for (const step of path) {
      const next: JsonSchema[] = [];
      for (const node of nodes) {
        const child = typeof step === 'number' ? itemSchema(node, step) : propertySchema(node, step);
        if (child === undefined) return undefined; // free there (additional properties, untyped items)
        next.push(child);
      }
      value = (value as Record<string | number, unknown>)[step];
      nodes = this.#applicable(next, value);
    }
    const values: unknown[] = [];
    for (const node of nodes) {
      if ('const' in node) values.push(node.const);
      else if (Array.isArray(node.enum)) values.push(...node.enum.filter((v) => kindOf(v) === kindOf(value)));
      else return undefined;
    }
    return values.length > 0 ? [...new Set(values)] : undefined;
  }

  /** The first leaf of `reply` that holds a value the grammar does not allow there, or null. */
  violation(reply: unknown): GrammarViolation | null {
    for (const { path, node } of sites(reply)) {
      if (Array.isArray(node)) continue;
      const allowed = this.allowedAt(reply, path);
      if (allowed && !allowed.includes(node)) return { path, written: node, allowed };
    }
    return null;
  }

  /**
   * The value a grammar-bound model writes at `path` in place of one the grammar forbids: one it
   * allows there but that is not the value the reply had (the neighbouring item's, when it has
   * another one at the same field; else the next allowed value), or undefined where the grammar
   * leaves the place free or allows one value only.
   */
  wrongButAllowed(reply: unknown, path: Path): unknown {
    const allowed = this.allowedAt(reply, path);
    const own = at(reply, path);
    const others = allowed?.filter((v) => v !== own);
    if (!others?.length) return undefined;
    const index = path.findLastIndex((step) => typeof step === 'number');
    if (index >= 0) {
      const items = at(reply, path.slice(0, index)) as unknown[];
      const k = path[index] as number;
      for (const neighbour of [k + 1, k - 1]) {
        if (neighbour < 0 || neighbour >= items.length) continue;
        const theirs = at(reply, [...path.slice(0, index), neighbour, ...path.slice(index + 1)]);
        if (others.includes(theirs)) return theirs;
      }
    }
    return allowed![(allowed!.indexOf(own) + 1) % allowed!.length];
  }

  /** The alternatives of `nodes` (references and `oneOf`s opened) that can hold `value`'s JSON type. */
  #applicable(nodes: readonly JsonSchema[], value: unknown, depth = 0): JsonSchema[] {
    const out: JsonSchema[] = [];
    for (const node of nodes) {
      if (depth > 32) break;
      if (typeof node.$ref === 'string') {
        const target = this.#deref(node.$ref);
        if (target) out.push(...this.#applicable([target], value, depth + 1));
      } else if (Array.isArray(node.oneOf)) {
        out.push(...this.#applicable(node.oneOf.filter(isRecord), value, depth + 1));
      } else if (holds(node, value)) out.push(node);
    }
    return out;
  }

  #deref(ref: string): JsonSchema | undefined {
    const defs = isRecord(this.#root.$defs) ? this.#root.$defs : {};
    const target = defs[ref.replace('#/$defs/', '')];
    return isRecord(target) ? target : undefined;
  }
}

type Kind = 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array';

function kindOf(value: unknown): Kind {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value as Kind;
}

/** Whether a schema node (no `$ref` or `oneOf` left) can hold a value of `value`'s JSON type. */
function holds(node: JsonSchema, value: unknown): boolean {
  const kind = kindOf(value);
  if ('const' in node) return kindOf(node.const) === kind;
  if (Array.isArray(node.enum)) return node.enum.some((v) => kindOf(v) === kind);
  if (node.type === undefined) return true;
  const types = (Array.isArray(node.type) ? node.type : [node.type]).map((t) => (t === 'integer' ? 'number' : t));
  return types.includes(kind);
}

function propertySchema(node: JsonSchema, key: string): JsonSchema | undefined {
  const property = isRecord(node.properties) ? node.properties[key] : undefined;
  if (isRecord(property)) return property;
  return isRecord(node.additionalProperties) ? node.additionalProperties : undefined;
}

function itemSchema(node: JsonSchema, index: number): JsonSchema | undefined {
  const prefix = Array.isArray(node.prefixItems) ? node.prefixItems[index] : undefined;
  if (isRecord(prefix)) return prefix;
  return isRecord(node.items) ? node.items : undefined;
}

function isRecord(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

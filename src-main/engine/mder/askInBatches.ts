import { z } from 'zod';
import { PolyhopError } from '../base/errors.js';
import {
  CHAT_TEMPLATE_TOKENS,
  type Llm,
  type LlmCallOptions,
  type LlmUsage,
  type RenderedPrompt,
} from '../models/Llm.js';
import { foldName, splitName } from './names.js';

/** Completion budget of a call at least: a batch of one short item still has room for a long sentence. */
const MIN_CALL_TOKENS = 256;

/** One text per item, asked for many items per call. */
export interface BatchRequest<I> {
  items: readonly I[];
  /**
   * The prompt for some of the items, numbered 1..n in the order given: the number is the id the
   * reply must carry for that item.
   */
  render: (items: readonly I[]) => RenderedPrompt;
  /** Reply key holding the list (e.g. `descriptions`) and each entry's text field (e.g. `description`). */
  listKey: string;
  textKey: string;
  /**
   * Each entry's content-key field (e.g. `object`, `name`), written before its text, and the key of
   * an item (its object, its name): an entry whose key is not its item's is asked again alone, so
   * a model that skips an item but numbers on cannot shift texts onto the wrong items. The grammar
   * lets the field hold the call's keys only (see {@link keyOneOf}).
   */
  keyField: string;
  keyOf: (item: I) => string;
  /**
   * A second content-key field written before the key (Enrich: the relation), which with the key
   * tells apart items that share their key, so they can share a call: an entry is checked on both,
   * and only items alike on both are asked in separate calls. Its grammar enum is the call's values.
   */
  qualifier?: { field: string; of: (item: I) => string };
  /** Completion budget of a call for these items (at least 256 tokens are given). */
  maxTokens: (items: readonly I[]) => number;
  /** Items per call at most (the grammar's id enum grows with it). */
  maxItemsPerCall: number;
  /** Sampling of every call (a unit asked again after a failed run passes another seed). Default: the Llm's. */
  sampling?: Pick<LlmCallOptions, 'temperature' | 'seed'>;
  signal?: AbortSignal;
}

/** An item that got no usable text, and why. */
export interface BatchMiss {
  index: number;
  reason: string;
}

export interface BatchResult {
  /** The text of each item, by its index in `items`; null when it got none (see `misses`). */
  texts: (string | null)[];
  misses: BatchMiss[];
  usage: LlmUsage;
  /** Model calls made (retries and splits included). */
  calls: number;
}

/**
 * Reply schema of a batch: exactly one entry per item (an empty or short list is no answer, so it
 * fails and is never cached), each naming its item by id (an enum the grammar enforces) and by
 * content key, which the grammar lets be one of the batch's `keys` only (see {@link keyOneOf}),
 * after its qualifier (one of the batch's `qualifier.values`) where there is one.
 */
export function batchReplySchema(
  keys: readonly string[],
  listKey: string,
  keyField: string,
  textKey: string,
  qualifier?: { field: string; values: readonly string[] },
) {
  const n = keys.length;
  const ids = Array.from({ length: n }, (_, i) => i + 1) as [number, ...number[]];
  const id = z.literal(ids);
  const key = keyOneOf(keys);
  const text = z.string().trim().min(1);
  const entry = qualifier
    ? z.object({ id, [qualifier.field]: keyOneOf(qualifier.values), [keyField]: key, [textKey]: text })
    : z.object({ id, [keyField]: key, [textKey]: text });
  return z.object({ [listKey]: z.array(entry).min(n).max(n) });
}

/** C0 controls node-llama-cpp writes raw into a grammar literal (it escapes only tab, CR and LF): JSON forbids them raw. */
const UNSPELLABLE =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * A content-key field the grammar can fill with one of `names` only: a small model under a grammar
 * cannot copy a name exactly, and a misspelt key would get a right reply refused. The key is still
 * checked against its item by {@link sameKey} (an id that drifted names another item's key), and
 * zod takes any string, so an endpoint that does not enforce the schema is checked as before.
 * Names the grammar cannot spell as a JSON string (C0 controls, broken surrogates) leave it free.
 */
export function keyOneOf(names: readonly string[]): z.ZodString {
  const unique = [...new Set(names)];
  if (unique.length === 0 || unique.some((name) => UNSPELLABLE.test(name))) return z.string();
  return z.string().meta({ enum: unique });
}

/** Whether a reply's content key names `expected` (case, accents, a "(Type)" suffix aside). */
export function sameKey(written: string, expected: string): boolean {
  return foldedKey(written) === foldedKey(expected);
}

function foldedKey(key: string): string {
  return foldName(splitName(key).name);
}

/**
 * Asks for one text per item, many items per call, and matches the reply to the items by the id
 * each entry carries, never by position, checked by its content key: a model that skips, repeats
 * or reorders items, or numbers on after a skipped one, attaches nothing to the wrong one. Items
 * missing from a reply, named twice with different texts, answered with another item's key, whose
 * key another entry of the reply also carries, or given the same text as another item without
 * naming their own key are asked again on their own; items that share a content key (and
 * qualifier, where there is one) are never asked in one call. A call whose prompt and output
 * would not fit the context is split before it is made, and one whose output is cut or invalid
 * is split and asked again, so a dense unit costs more calls instead of losing all its texts.
 * What still fails is in `misses`.
 */
export async function askInBatches<I>(llm: Llm, request: BatchRequest<I>): Promise<BatchResult> {
  const texts: (string | null)[] = request.items.map(() => null);
  const misses: BatchMiss[] = [];
  const usage = noUsage();
  let calls = 0;

  const ask = async (indexes: readonly number[]): Promise<void> => {
    const items = indexes.map((i) => request.items[i]!);
    const prompt = request.render(items);
    const maxTokens = Math.max(MIN_CALL_TOKENS, request.maxTokens(items));
    const fits = fitsContext(llm, prompt, maxTokens);
    if (indexes.length > 1 && (!fits || indexes.length > request.maxItemsPerCall)) return split(indexes);
    const twins = sharedKeys(indexes);
    if (twins.length > 0) {
      // Two items with one content key in a call: the key cannot tell their entries apart, so a
      // text moved from one onto the other would pass. Each is asked in another call.
      await ask(indexes.filter((i) => !twins.includes(i)));
      return ask(twins);
    }
    let reply: Record<string, { id: number; [k: string]: unknown }[]>;
    try {
      calls++;
      const qualifier = request.qualifier;
      const schema = batchReplySchema(
        items.map((item) => request.keyOf(item)),
        request.listKey,
        request.keyField,
        request.textKey,
        qualifier && { field: qualifier.field, values: items.map((item) => qualifier.of(item)) },
      );
      const result = await llm.generateJson(prompt, schema, { ...request.sampling, maxTokens, signal: request.signal });
      addUsage(usage, result.usage);
      reply = result.value as typeof reply;
    } catch (error) {
      // Cut or invalid output, or a prompt the model refused: fewer items make both shorter.
      if (!(error instanceof PolyhopError) || (error.code !== 'LLM_OUTPUT_INVALID' && error.code !== 'BAD_INPUT'))
        throw error;
      if (indexes.length > 1) return split(indexes);
      misses.push({ index: indexes[0]!, reason: error.message });
      return;
    }
    const byId = new Map<number, string | null>();
    const idsOfText = new Map<string, Set<number>>();
    const idsOfKey = new Map<string, Set<number>>();
    for (const entry of reply[request.listKey] ?? []) {
      const text = entry[request.textKey] as string;
      const written = {
        key: entry[request.keyField] as string,
        qualifier: request.qualifier && entry[request.qualifier.field],
      };
      const seen = byId.get(entry.id);
      // An entry keyed to another item belongs to it, or to none: the numbering slipped.
      const keyed = sameContentKey(written, items[entry.id - 1]!);
      // The same id with two different texts: one of them belongs to another item, and we cannot tell which.
      byId.set(entry.id, keyed && (seen === undefined || seen === text) ? text : null);
      idsOfText.set(text, (idsOfText.get(text) ?? new Set()).add(entry.id));
      const key = writtenKey(written);
      idsOfKey.set(key, (idsOfKey.get(key) ?? new Set()).add(entry.id));
    }
    // A call's content keys are distinct (see sharedKeys), so one key under two ids means an entry
    // took its neighbour's key; the one whose id matches may carry the other's text: neither is trusted.
    for (const ids of idsOfKey.values()) if (ids.size > 1) for (const id of ids) byId.set(id, null);
    // One text under two ids: kept only for the items whose key it names (a sentence may state two
    // facts); for the others it is another item's text, written again. Items that share their key
    // (told apart by the qualifier only) keep it only where it names their qualifier too.
    for (const [text, ids] of idsOfText) {
      if (ids.size < 2) continue;
      const names = (value: string): boolean => foldName(text).includes(foldName(value));
      const keys = [...ids].map((id) => request.keyOf(items[id - 1]!));
      [...ids].forEach((id, k) => {
        const qualifier = request.qualifier?.of(items[id - 1]!);
        const shared = keys.filter((key) => sameKey(key, keys[k]!)).length > 1;
        if (!names(keys[k]!) || (shared && qualifier !== undefined && !names(qualifier))) byId.set(id, null);
      });
    }
    const missing: number[] = [];
    indexes.forEach((index, k) => {
      const text = byId.get(k + 1);
      if (text) texts[index] = text;
      else missing.push(index);
    });
    if (indexes.length === 1) {
      if (missing.length > 0)
        misses.push({
          index: indexes[0]!,
          reason: byId.has(1) ? 'the reply named another item' : 'the reply named no entry for it',
        });
      return;
    }
    for (const index of missing) await ask([index]);
  };
  /** Whether an entry's key (and qualifier) name `item`'s. */
  const sameContentKey = (written: { key: string; qualifier: unknown }, item: I): boolean =>
    sameKey(written.key, request.keyOf(item)) &&
    (!request.qualifier || sameKey(String(written.qualifier), request.qualifier.of(item)));
  /** The folded content key of an entry or item: its key, after its qualifier where there is one. */
  const writtenKey = (written: { key: string; qualifier: unknown }): string =>
    request.qualifier
      ? `${foldedKey(String(written.qualifier))}\u0000${foldedKey(written.key)}`
      : foldedKey(written.key);
  const itemKey = (item: I): string => writtenKey({ key: request.keyOf(item), qualifier: request.qualifier?.of(item) });
  /** The items after the first of those whose content key an earlier item of `indexes` has too. */
  const sharedKeys = (indexes: readonly number[]): number[] => {
    const seen = new Set<string>();
    return indexes.filter((i) => {
      const key = itemKey(request.items[i]!);
      if (seen.has(key)) return true;
      seen.add(key);
      return false;
    });
  };
  const split = async (indexes: readonly number[]): Promise<void> => {
    const half = Math.ceil(indexes.length / 2);
    await ask(indexes.slice(0, half));
    await ask(indexes.slice(half));
  };

  if (request.items.length > 0) await ask(request.items.map((_, i) => i));
  misses.sort((a, b) => a.index - b.index);
  return { texts, misses, usage, calls };
}

/** Whether a prompt and its output budget fit the model's context (unknown context: assumed to). */
export function fitsContext(llm: Llm, prompt: RenderedPrompt, maxTokens: number): boolean {
  return (
    llm.contextTokens === undefined ||
    llm.countTokens(prompt.system) + llm.countTokens(prompt.user) + CHAT_TEMPLATE_TOKENS + maxTokens <=
      llm.contextTokens
  );
}

/** Adds one call's usage to a total over several calls (cached only when all of them were). */
export function addUsage(total: LlmUsage, usage: LlmUsage): void {
  total.promptTokens += usage.promptTokens;
  total.completionTokens += usage.completionTokens;
  total.durationMs += usage.durationMs;
  total.cached &&= usage.cached;
}

/** The usage total before any call. */
export function noUsage(): LlmUsage {
  return { promptTokens: 0, completionTokens: 0, durationMs: 0, cached: true };
}

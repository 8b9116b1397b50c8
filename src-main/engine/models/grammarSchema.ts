import { z } from 'zod';

/**
 * From a zod schema to the JSON-schema subset that node-llama-cpp turns into a GBNF grammar
 * (`llama.createGrammarForJsonSchema`). The grammar only has to keep the model on the right
 * shape; zod validates the parsed value afterwards, so constraints the grammar cannot express
 * (patterns, numeric ranges, most formats) are dropped here and still enforced there.
 *
 * What the subset lacks, and how it is mapped:
 * - optional properties: every listed property is generated, so an optional one may be `null`
 *   in the grammar and {@link dropGrammarNulls} removes that null before validation;
 * - `anyOf` → `oneOf`; `allOf` of objects → one merged object (else its first part);
 * - `{}` (unknown) → any JSON value; `$ref: "#"` (zod's root recursion) → a `$defs` entry;
 * - `items: false` after `prefixItems` → `maxItems` = number of prefix items;
 * - an integer range of at most {@link MAX_INTEGER_ENUM} values → an `enum` of them (the grammar has no bounds);
 * - string `format` other than date/time/date-time, `pattern`, `propertyNames`, numeric bounds → dropped.
 */
export type JsonSchema = { [key: string]: unknown };

export interface ZodJsonSchema {
  /** `z.toJSONSchema(schema)` without `$schema`. */
  readonly json: JsonSchema;
  /** Its canonical JSON text (cache key part). */
  readonly text: string;
  /** The grammar-subset schema. */
  readonly grammar: JsonSchema;
}

const memo = new WeakMap<z.ZodType, ZodJsonSchema>();

/** JSON Schema of a zod schema and its grammar mapping, computed once per schema object. */
export function zodJsonSchema(schema: z.ZodType): ZodJsonSchema {
  let entry = memo.get(schema);
  if (!entry) {
    const { $schema: _ignored, ...json } = z.toJSONSchema(schema) as JsonSchema;
    entry = { json, text: JSON.stringify(json), grammar: toGrammarSchema(json) };
    memo.set(schema, entry);
  }
  return entry;
}

const ROOT_DEF = '__root';
const MAX_INTEGER_ENUM = 64;
const GRAMMAR_FORMATS = new Set(['date-time', 'time', 'date']);
const IMMUTABLE_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);
const ANY: JsonSchema = {
  oneOf: [
    { type: ['string', 'number', 'boolean', 'null'] },
    { type: 'object', additionalProperties: true },
    { type: 'array' },
  ],
};

/** Maps a full JSON Schema (as zod emits it) onto node-llama-cpp's grammar subset. */
export function toGrammarSchema(root: JsonSchema): JsonSchema {
  const defs = isRecord(root.$defs) ? { ...root.$defs } : {};
  const { $defs: _defs, ...body } = root;
  const recursive = JSON.stringify(body).includes('"$ref":"#"');
  const mappedDefs: Record<string, JsonSchema> = {};
  for (const [name, def] of Object.entries(defs)) mappedDefs[name] = mapNode(def);
  if (recursive) mappedDefs[ROOT_DEF] = mapNode(body);
  const top = recursive ? { $ref: `#/$defs/${ROOT_DEF}` } : mapNode(body);
  return Object.keys(mappedDefs).length > 0 ? { ...top, $defs: mappedDefs } : top;
}

function mapNode(node: unknown): JsonSchema {
  if (node === true || !isRecord(node)) return ANY;
  const described = (s: JsonSchema): JsonSchema =>
    typeof node.description === 'string' ? { ...s, description: node.description } : s;

  if (typeof node.$ref === 'string') {
    if (node.$ref === '#') return { $ref: `#/$defs/${ROOT_DEF}` };
    return node.$ref.startsWith('#/$defs/') ? { $ref: node.$ref } : ANY;
  }
  if ('const' in node) return described({ const: node.const });
  if (Array.isArray(node.enum)) return described({ enum: node.enum });
  const alternatives = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
  if (alternatives) return described({ oneOf: alternatives.map(mapNode) });
  if (Array.isArray(node.allOf)) return described(mergeAll(node.allOf.map(mapNode)));

  const type = node.type;
  if (Array.isArray(type)) {
    const stringKeywords = node.minLength !== undefined || node.maxLength !== undefined || node.format !== undefined;
    if (type.every((t) => typeof t === 'string' && IMMUTABLE_TYPES.has(t)) && !stringKeywords)
      return described({ type });
    // Mixed lists (or strings with length limits) become one alternative per type, each keeping its own keywords.
    return described({ oneOf: type.map((t) => mapNode({ ...node, type: t, description: undefined })) });
  }
  switch (type) {
    case 'string': {
      if (typeof node.format === 'string' && GRAMMAR_FORMATS.has(node.format))
        return described({ type, format: node.format });
      return described(pick({ type }, node, ['minLength', 'maxLength']));
    }
    case 'integer': {
      const { minimum: lo, maximum: hi } = node;
      if (typeof lo === 'number' && typeof hi === 'number' && hi >= lo && hi - lo < MAX_INTEGER_ENUM) {
        const from = Math.ceil(lo);
        return described({ enum: Array.from({ length: Math.floor(hi) - from + 1 }, (_, i) => from + i) });
      }
      return described({ type });
    }
    case 'number':
    case 'boolean':
    case 'null':
      return described({ type });
    case 'object':
      return described(mapObject(node));
    case 'array':
      return described(mapArray(node));
    default:
      return ANY;
  }
}

function mapObject(node: JsonSchema): JsonSchema {
  const properties = isRecord(node.properties) ? node.properties : {};
  const required = new Set(Array.isArray(node.required) ? node.required : []);
  const mapped: Record<string, JsonSchema> = {};
  for (const [key, value] of Object.entries(properties)) {
    const schema = mapNode(value);
    mapped[key] = required.has(key) || admitsNull(schema) ? schema : { oneOf: [schema, { type: 'null' }] };
  }
  const out: JsonSchema = { type: 'object', properties: mapped };
  const extra = node.additionalProperties;
  if (extra !== undefined && extra !== false) {
    out.additionalProperties = extra === true ? true : mapNode(extra);
    Object.assign(out, pick({}, node, ['minProperties', 'maxProperties']));
  }
  return out;
}

function mapArray(node: JsonSchema): JsonSchema {
  const out: JsonSchema = pick({ type: 'array' }, node, ['minItems', 'maxItems']);
  if (Array.isArray(node.prefixItems)) {
    out.prefixItems = node.prefixItems.map(mapNode);
    if (node.items === false && out.maxItems === undefined) out.maxItems = node.prefixItems.length;
  }
  if (node.items !== undefined && node.items !== false) out.items = mapNode(node.items);
  return out;
}

function mergeAll(parts: JsonSchema[]): JsonSchema {
  if (parts.length > 0 && parts.every((p) => p.type === 'object')) {
    const properties: Record<string, unknown> = {};
    for (const p of parts) Object.assign(properties, p.properties);
    return { type: 'object', properties };
  }
  return parts[0] ?? ANY;
}

function admitsNull(schema: JsonSchema): boolean {
  if (schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'))) return true;
  if (schema.const === null || (Array.isArray(schema.enum) && schema.enum.includes(null))) return true;
  return Array.isArray(schema.oneOf) && schema.oneOf.some((s) => isRecord(s) && admitsNull(s));
}

/**
 * Removes the `null`s the grammar let the model put in optional properties whose schema does
 * not accept null (see {@link mapObject}), so zod sees an absent key. Walks value and schema
 * together; in unions it follows the first alternative of the value's JSON type.
 */
export function dropGrammarNulls(value: unknown, schema: JsonSchema, root: JsonSchema = schema): unknown {
  const resolved = resolve(schema, root, value);
  if (!resolved) return value;
  if (Array.isArray(value)) {
    const prefix = Array.isArray(resolved.prefixItems) ? resolved.prefixItems : [];
    return value.map((item, i) => {
      const itemSchema = prefix[i] ?? resolved.items;
      return isRecord(itemSchema) ? dropGrammarNulls(item, itemSchema, root) : item;
    });
  }
  if (!isRecord(value)) return value;
  const properties = isRecord(resolved.properties) ? resolved.properties : {};
  const required = new Set(Array.isArray(resolved.required) ? resolved.required : []);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const propSchema = properties[key];
    if (item === null && !required.has(key) && isRecord(propSchema) && !schemaAdmitsNull(propSchema, root)) continue;
    out[key] = isRecord(propSchema) ? dropGrammarNulls(item, propSchema, root) : item;
  }
  return out;
}

function deref(schema: JsonSchema, root: JsonSchema): JsonSchema | undefined {
  if (typeof schema.$ref !== 'string') return schema;
  const target =
    schema.$ref === '#' ? root : isRecord(root.$defs) ? root.$defs[schema.$ref.replace('#/$defs/', '')] : undefined;
  return isRecord(target) ? target : undefined;
}

function resolve(schema: JsonSchema, root: JsonSchema, value: unknown, depth = 0): JsonSchema | undefined {
  if (depth > 32) return undefined;
  if (typeof schema.$ref === 'string') {
    const target = deref(schema, root);
    return target ? resolve(target, root, value, depth + 1) : undefined;
  }
  const alternatives = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (Array.isArray(alternatives)) {
    const kind = Array.isArray(value) ? 'array' : value !== null && typeof value === 'object' ? 'object' : undefined;
    if (!kind) return undefined;
    for (const alt of alternatives) {
      const r = isRecord(alt) ? resolve(alt, root, value, depth + 1) : undefined;
      if (r && (r.type === kind || (Array.isArray(r.type) && r.type.includes(kind)))) return r;
    }
    return undefined;
  }
  return schema;
}

function schemaAdmitsNull(schema: JsonSchema, root: JsonSchema, depth = 0): boolean {
  if (typeof schema.$ref === 'string') {
    const target = deref(schema, root);
    return target !== undefined && depth < 32 && schemaAdmitsNull(target, root, depth + 1);
  }
  if (Object.keys(schema).filter((k) => k !== 'description').length === 0) return true; // unknown/any
  if (schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'))) return true;
  if (schema.const === null || (Array.isArray(schema.enum) && schema.enum.includes(null))) return true;
  const alternatives = schema.anyOf ?? schema.oneOf;
  return Array.isArray(alternatives) && alternatives.some((s) => isRecord(s) && schemaAdmitsNull(s, root, depth + 1));
}

function pick(target: JsonSchema, source: JsonSchema, keys: readonly string[]): JsonSchema {
  for (const key of keys) if (typeof source[key] === 'number') target[key] = source[key];
  return target;
}

function isRecord(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `schema` with every string `enum` that holds a value `spellable` refuses turned into a plain
 * string. A grammar literal the model's vocabulary cannot write (a character it only has as an
 * unknown token) leaves llama.cpp's sampler nothing to accept but that token, and node-llama-cpp
 * then fails outside the call's promise, which never settles; the reply's own check stays.
 */
export function withSpellableEnums(schema: JsonSchema, spellable: (text: string) => boolean): JsonSchema {
  const map = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(map);
    if (!isRecord(node)) return node;
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(node)) out[key] = key === 'enum' ? value : map(value);
    const values = out.enum;
    if (Array.isArray(values) && values.some((v) => typeof v === 'string' && !spellable(v))) {
      delete out.enum;
      out.type = 'string';
    }
    return out;
  };
  return map(schema) as JsonSchema;
}

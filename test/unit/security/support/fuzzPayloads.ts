import { z } from 'zod';
import { requestSchemas, type Method } from '../../../../src-main/engine/api/contract.js';
import { Prng } from '../../../../src-main/engine/eval/stats/Prng.js';

/**
 * Generated hostile payloads for one Api method, read off its request schema: a plausible base
 * request, then one field at a time replaced by a wrong type, a huge string, NaN/Infinity, a
 * negative or fractional number, 10k-deep nesting, prototype-pollution keys or a path-traversal
 * string; plus unknown fields and non-object payloads. Seeded, so a failure names a payload
 * that comes back on the next run.
 */

export interface FuzzPlaces {
  /** Working KB every base request names. */
  kb: string;
  /** An existing plain file for input-path fields. */
  inputFile: string;
  /** A folder for output-path fields; traversal strings for outputs stay inside it. */
  outputDir: string;
}

export interface FuzzCase {
  label: string;
  payload: unknown;
  /** The payload as JSON, where JSON.stringify would overflow the stack (10k-deep nesting). */
  json?: string;
}

interface JsonSchema {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  exclusiveMinimum?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  default?: unknown;
}

const INPUT_PATHS = new Set(['path', 'inputPath', 'datasetPath', 'corpusPath', 'graphPath']);
const OUTPUT_PATHS = new Set(['outputPath', 'outDir']);

const DEPTH = 10_000;
const deepJson = (open: string, close: string, inner: string): string =>
  `${open.repeat(DEPTH)}${inner}${close.repeat(DEPTH)}`;
/** `{...base, [field]: <10k-deep value>}` as JSON text. */
const withDeep = (base: Record<string, unknown>, field: string, deep: string): string =>
  JSON.stringify({ ...base, [field]: '\u0000DEEP' }).replace('"\\u0000DEEP"', deep);

export function deepObject(depth: number): unknown {
  let value: unknown = {};
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

export function deepArray(depth: number): unknown {
  let value: unknown = [];
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** Own `__proto__` / `constructor.prototype` keys, as JSON.parse makes them (an object literal would not). */
export const pollution = (): Record<string, unknown> =>
  JSON.parse(
    '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "prototype": {"polluted": "yes"}}',
  ) as Record<string, unknown>;

/** Strings with control, surrogate, bidi and NUL characters. */
function garbage(rng: Prng, length: number): string {
  const pool = [0, 1, 0x1f, 0x7f, 0x202e, 0xfeff, 0xd800, 0xdfff, 0xfffe, 0x2028, 0x22, 0x5c, 0x2f, 0x3c, 0x2e];
  let out = '';
  for (let i = 0; i < length; i++)
    out += String.fromCharCode(
      rng.next() < 0.5 ? (pool[rng.nextInt(pool.length)] as number) : 0x20 + rng.nextInt(0x2fff),
    );
  return out;
}

/** Traversal strings. For outputs they resolve inside `outputDir` (run with cwd three levels below it), so the fuzz never writes elsewhere. */
function traversals(place: 'input' | 'output', places: FuzzPlaces): string[] {
  const common = [
    '..\\..\\..\\windows\\win.ini',
    '%2e%2e/%2e%2e/%2e%2e/x',
    'a/\0/b',
    `${places.outputDir}/x\0.bin`,
    'x'.repeat(300),
    '.',
    '~',
    'file:///etc/passwd',
    ' ',
  ];
  if (place === 'output')
    return [...common, '../../../escape.out', 'a/b/../../../../../escape2.out', `${places.outputDir}/./a/../b.out`];
  return [
    ...common,
    '../../../../../../../../../../etc/passwd',
    '/etc/shadow',
    '/proc/self/environ',
    `${places.inputFile}/../../../../../../etc/hostname`,
    '/nonexistent/../../etc/passwd',
    `${places.outputDir}/missing.txt`,
  ];
}

function valueFor(name: string, schema: JsonSchema, places: FuzzPlaces): unknown {
  if (name === 'kb') return places.kb;
  if (name === 'name' || name === 'newName') return `${places.kb}-${name}`;
  if (INPUT_PATHS.has(name)) return places.inputFile;
  if (OUTPUT_PATHS.has(name)) return `${places.outputDir}/out-${name}`;
  if (name === 'paths') return [places.inputFile];
  if (name === 'query') return 'ASK { ?s ?p ?o }';
  if (name === 'scope') return { kind: 'all' };
  if (name === 'settings') return {};
  if (name === 'jobId') return 'no-such-job';
  if (name === 'catalogId') return 'no-such-model';
  if (name === 'file') return 'no-such-model.gguf';
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const alt = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  if (alt) return valueFor(name, alt, places);
  switch (schema.type) {
    case 'integer':
    case 'number':
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 0);
    case 'boolean':
      return false;
    case 'array':
      return [valueFor(name, schema.items ?? {}, places)];
    case 'object':
      return {};
    default:
      return 'x';
  }
}

/** The cases of one method: 40–120 payloads depending on its fields. */
export function fuzzCases(method: Method, places: FuzzPlaces, seed: number): FuzzCase[] {
  const rng = new Prng(seed);
  const schema = z.toJSONSchema(requestSchemas[method], { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const properties = schema.properties ?? {};
  const base: Record<string, unknown> = {};
  for (const name of schema.required ?? []) base[name] = valueFor(name, properties[name] ?? {}, places);

  const cases: FuzzCase[] = [
    { label: 'null', payload: null },
    { label: 'number', payload: 42 },
    { label: 'string', payload: 'payload' },
    { label: 'array', payload: [base] },
    { label: 'deep object payload', payload: deepObject(DEPTH), json: deepJson('{"a":', '}', '{}') },
    { label: 'deep array payload', payload: deepArray(DEPTH), json: deepJson('[', ']', '[]') },
    { label: 'unknown field', payload: { ...base, zzUnknown: true } },
    {
      label: 'many unknown fields',
      payload: { ...base, ...Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`f${i}`, i])) },
    },
    { label: 'polluting keys at the top', payload: Object.assign(pollution(), base) },
    { label: 'garbage key', payload: { ...base, [garbage(rng, 20)]: garbage(rng, 50) } },
  ];

  // One huge string per method (1–5 MB), in a random string field (or as an unknown field).
  const stringFields = Object.keys(properties).filter(
    (k) => properties[k]?.type === 'string' || INPUT_PATHS.has(k) || OUTPUT_PATHS.has(k),
  );
  const hugeField = stringFields.length ? (stringFields[rng.nextInt(stringFields.length)] as string) : 'zzHuge';
  const hugeSize = (1 + rng.nextInt(5)) * 1_000_000;
  cases.push({
    label: `huge string (${hugeSize} chars) in ${hugeField}`,
    payload: { ...base, [hugeField]: 'A'.repeat(hugeSize - 1) + 'é' },
  });

  for (const [field, fieldSchema] of Object.entries(properties)) {
    const wrong: unknown[] = [
      123,
      -1,
      1.5,
      true,
      null,
      [],
      {},
      'str',
      NaN,
      Infinity,
      -Infinity,
      -0,
      2 ** 53 + 2,
      -(2 ** 31),
      0.1 + 0.2,
      Number.MIN_VALUE,
    ];
    if (fieldSchema.type === 'array')
      wrong.push(
        [null],
        [123],
        Array.from({ length: 20_000 }, () => 'x'),
        [garbage(rng, 30)],
      );
    rng.shuffle(wrong);
    for (const value of wrong)
      cases.push({ label: `${field} = ${describe(value)}`, payload: { ...base, [field]: value } });
    cases.push({
      label: `${field} = 10k-deep object`,
      payload: { ...base, [field]: deepObject(DEPTH) },
      json: withDeep(base, field, deepJson('{"a":', '}', '{}')),
    });
    cases.push({
      label: `${field} = 10k-deep array`,
      payload: { ...base, [field]: deepArray(DEPTH) },
      json: withDeep(base, field, deepJson('[', ']', '[]')),
    });
    cases.push({ label: `${field} = polluting object`, payload: { ...base, [field]: pollution() } });
    cases.push({
      label: `${field} = garbage string`,
      payload: { ...base, [field]: garbage(rng, 1 + rng.nextInt(200)) },
    });
    const place = OUTPUT_PATHS.has(field) ? 'output' : INPUT_PATHS.has(field) || field === 'paths' ? 'input' : null;
    if (place) {
      for (const path of traversals(place, places))
        cases.push({
          label: `${field} = traversal ${JSON.stringify(path.slice(0, 60))}`,
          payload: { ...base, [field]: field === 'paths' ? [path] : path },
        });
    }
  }
  return cases;
}

function describe(value: unknown): string {
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (Array.isArray(value)) return value.length > 5 ? `array(${value.length})` : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

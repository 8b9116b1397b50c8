import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  dropGrammarNulls,
  toGrammarSchema,
  withSpellableEnums,
  zodJsonSchema,
} from '../../../src-main/engine/models/grammarSchema.js';

describe('zod → node-llama-cpp grammar schema', () => {
  it('keeps what the grammar supports and drops $schema', () => {
    const { json, grammar } = zodJsonSchema(
      z.object({
        name: z.string().min(1).max(20),
        kind: z.enum(['a', 'b']),
        tags: z.array(z.string()).max(3),
        ok: z.boolean(),
        lit: z.literal('x'),
      }),
    );
    expect(json.$schema).toBeUndefined();
    expect(grammar).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 20 },
        kind: { enum: ['a', 'b'] },
        tags: { type: 'array', maxItems: 3, items: { type: 'string' } },
        ok: { type: 'boolean' },
        lit: { const: 'x' },
      },
    });
  });

  it('makes optional properties nullable in the grammar and drops those nulls before validation', () => {
    const schema = z.object({
      a: z.string().optional(),
      b: z.string().nullable(),
      c: z.object({ d: z.number().optional() }).optional(),
    });
    const { json, grammar } = zodJsonSchema(schema);
    const props = grammar.properties as Record<string, unknown>;
    expect(props.a).toEqual({ oneOf: [{ type: 'string' }, { type: 'null' }] });
    expect(props.b).toEqual({ type: ['string', 'null'] });
    const cleaned = dropGrammarNulls({ a: null, b: null, c: { d: null } }, json);
    expect(cleaned).toEqual({ b: null, c: {} });
    expect(schema.safeParse(cleaned).success).toBe(true);
    expect(schema.safeParse({ a: null, b: null }).success).toBe(false);
  });

  it('maps unions, intersections, unknown, records, tuples and formats', () => {
    const { grammar } = zodJsonSchema(
      z.object({
        u: z.union([z.string(), z.object({ q: z.boolean() })]),
        i: z.intersection(z.object({ a: z.string() }), z.object({ b: z.number() })),
        any: z.unknown(),
        rec: z.record(z.string(), z.number()),
        tup: z.tuple([z.string(), z.boolean()]),
        email: z.string().email(),
        day: z.iso.date(),
      }),
    );
    const p = grammar.properties as Record<string, Record<string, unknown>>;
    expect(p.u).toEqual({ oneOf: [{ type: 'string' }, { type: 'object', properties: { q: { type: 'boolean' } } }] });
    expect(p.i).toEqual({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } } });
    expect(p.any?.oneOf).toHaveLength(3);
    expect(p.rec).toEqual({ type: 'object', properties: {}, additionalProperties: { type: 'number' } });
    expect(p.tup).toEqual({
      type: 'array',
      minItems: 2,
      maxItems: 2,
      prefixItems: [{ type: 'string' }, { type: 'boolean' }],
    });
    expect(p.email).toEqual({ type: 'string' }); // pattern/format left to zod
    expect(p.day).toEqual({ type: 'string', format: 'date' });
  });

  it('turns a small integer range into an enum and leaves wide ones to zod', () => {
    const { grammar } = zodJsonSchema(z.object({ small: z.number().int().min(1).max(5), wide: z.number().int() }));
    const p = grammar.properties as Record<string, unknown>;
    expect(p.small).toEqual({ enum: [1, 2, 3, 4, 5] });
    expect(p.wide).toEqual({ type: 'integer' });
  });

  it('rewrites root recursion into $defs', () => {
    interface Node {
      name: string;
      children: Node[];
    }
    const node: z.ZodType<Node> = z.object({
      name: z.string(),
      get children() {
        return z.array(node);
      },
    });
    const g = zodJsonSchema(node).grammar;
    expect(g.$ref).toBe('#/$defs/__root');
    const root = (g.$defs as Record<string, Record<string, unknown>>).__root as Record<string, unknown>;
    expect((root.properties as Record<string, unknown>).children).toEqual({
      type: 'array',
      items: { $ref: '#/$defs/__root' },
    });
  });

  it('keeps named $defs', () => {
    const g = toGrammarSchema({
      type: 'object',
      properties: { a: { $ref: '#/$defs/X' } },
      required: ['a'],
      $defs: { X: { type: 'string' } },
    });
    expect(g).toEqual({ type: 'object', properties: { a: { $ref: '#/$defs/X' } }, $defs: { X: { type: 'string' } } });
  });

  it('memoises per schema object', () => {
    const s = z.object({ a: z.string() });
    expect(zodJsonSchema(s)).toBe(zodJsonSchema(s));
  });

  it('frees a string enum the vocabulary cannot spell, wherever it is nested, and keeps the others', () => {
    const schema = {
      type: 'object',
      properties: {
        pair: { enum: ['P1', 'P2'] },
        items: {
          type: 'array',
          items: { type: 'object', properties: { a: { type: 'string', enum: ['Ann', '뽑기'] } } },
        },
      },
    };
    const spellable = (text: string) => !text.includes('뽑');
    const mapped = withSpellableEnums(schema, spellable) as typeof schema;
    expect(mapped.properties.pair).toEqual({ enum: ['P1', 'P2'] });
    expect(mapped.properties.items.items.properties.a).toEqual({ type: 'string' });
    expect(schema.properties.items.items.properties.a.enum).toEqual(['Ann', '뽑기']);
    expect(withSpellableEnums(schema, () => true)).toEqual(schema);
  });
});

/**
 * What the engine accepts as a KB name and as an absolute IRI on the wire: one rule for the Api
 * contract, the KB registry and the renderer's forms (which check before they call). A contract
 * leaf: it imports nothing, so the renderer's bundle takes it without engine code.
 */

/** The KB name rule in words, for the messages that refuse a name. */
export const KB_NAME_RULE = '1–64 letters, digits, spaces, "_", "-" or ".", starting with a letter or digit';

const KB_NAME_PATTERN = /^[\p{L}\p{N}][\p{L}\p{N} _.-]*$/u;

/** Whether `name` is a KB name as written (the registry trims a name before it asks). */
export function isKbName(name: string): boolean {
  return name.length <= 64 && KB_NAME_PATTERN.test(name);
}

export const ABSOLUTE_IRI_RULE =
  'an absolute IRI (with a scheme, e.g. https://example.org/kb#) of at most 2,000 characters';

/**
 * Whether `value` (trimmed) is an absolute IRI as `URL` parses one, of at most 2,000 characters. A
 * KB's own base IRI must also end in '/' or '#' and be http(s) or urn (kb/utils/baseIri.ts).
 */
export function isAbsoluteIri(value: string): boolean {
  return value.length <= 2000 && URL.canParse(value);
}

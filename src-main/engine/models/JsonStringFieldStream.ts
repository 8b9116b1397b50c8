/**
 * Decodes one top-level string field of a JSON object while the object's text is still being
 * generated, so the field can be shown as it is written (the final answer's `answer`). Fed the raw
 * text chunk by chunk, it calls `onText` with the newly decoded characters of that field and with
 * nothing else: escapes are decoded (a `\uXXXX` pair split across chunks included), the field may
 * come anywhere in the object, nested objects and other fields are skipped, and a reply cut off
 * mid-field has streamed what it wrote. It follows the text, not validates it: the caller's
 * JSON.parse and schema decide what the reply is. Only the field's first occurrence streams.
 */
export class JsonStringFieldStream {
  readonly #field: string;
  readonly #onText: (text: string) => void;
  /** Open objects and arrays (1: inside the top-level object). */
  #depth = 0;
  /** Whether the next string at depth 1 is a key (after `{` or `,`) rather than a value (after `:`). */
  #expectKey = false;
  /** The string being read: a key at depth 1, the field's value, or one to skip. */
  #string: 'key' | 'field' | 'skip' | null = null;
  /** The key just read, or being read. */
  #key = '';
  #lastKey = '';
  /** After a backslash: '' when the escape's letter is next, else the `\u` hex digits read so far. */
  #escape: string | null = null;
  /** A high surrogate held until the code unit after it is known (the pair is emitted whole). */
  #highSurrogate = '';
  #found = false;
  #done = false;

  constructor(field: string, onText: (text: string) => void) {
    this.#field = field;
    this.#onText = onText;
  }

  /** True once the field's value has opened. */
  get found(): boolean {
    return this.#found;
  }

  /** True once the field's value has closed (later text is ignored). */
  get done(): boolean {
    return this.#done;
  }

  write(chunk: string): void {
    let out = '';
    for (let i = 0; i < chunk.length && !this.#done; i++) {
      const c = chunk[i] as string;
      if (this.#string === null) {
        this.#structure(c);
        continue;
      }
      let decoded: string;
      if (this.#escape !== null) {
        const unit = this.#escaped(c);
        if (unit === undefined) continue;
        decoded = unit;
      } else if (c === '\\') {
        this.#escape = '';
        continue;
      } else if (c === '"') {
        if (this.#string === 'field') {
          out += this.#highSurrogate;
          this.#done = true;
        }
        if (this.#string === 'key') this.#lastKey = this.#key;
        this.#string = null;
        continue;
      } else decoded = c;
      if (this.#string === 'key') this.#key += decoded;
      else if (this.#string === 'field') out += this.#held(decoded);
    }
    if (out) this.#onText(out);
  }

  /** Outside strings: depth, and whether the next string is a key, the field's value or neither. */
  #structure(c: string): void {
    if (c === '{' || c === '[') {
      this.#depth++;
      this.#expectKey = c === '{' && this.#depth === 1;
    } else if (c === '}' || c === ']') this.#depth--;
    else if (c === ',' && this.#depth === 1) this.#expectKey = true;
    else if (c === ':' && this.#depth === 1) this.#expectKey = false;
    else if (c === '"') {
      if (this.#depth !== 1) this.#string = 'skip';
      else if (this.#expectKey) {
        this.#string = 'key';
        this.#key = '';
      } else if (this.#lastKey === this.#field) {
        this.#string = 'field';
        this.#found = true;
      } else this.#string = 'skip';
    }
  }

  /** One character of an escape; the decoded code unit once the escape is complete. */
  #escaped(c: string): string | undefined {
    if (this.#escape === '') {
      if (c === 'u') {
        this.#escape = 'u';
        return undefined;
      }
      this.#escape = null;
      return SIMPLE_ESCAPES[c] ?? c;
    }
    const hex = `${this.#escape ?? 'u'}${c}`;
    this.#escape = hex.length < 5 ? hex : null;
    return hex.length < 5 ? undefined : String.fromCharCode(Number.parseInt(hex.slice(1), 16));
  }

  /** The text to emit for one decoded code unit: a high surrogate waits for its low half. */
  #held(unit: string): string {
    const code = unit.charCodeAt(0);
    const pending = this.#highSurrogate;
    this.#highSurrogate = code >= 0xd800 && code <= 0xdbff ? unit : '';
    return this.#highSurrogate ? pending : pending + unit;
  }
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
  '"': '"',
  '\\': '\\',
  '/': '/',
};

/**
 * Characters by what a tokenizer makes of them: `latin` (Latin letters and spaces: a word is one
 * or two tokens), `symbol` (digits, punctuation, symbols: mostly a token each, which is what makes
 * code and tables dense; Qwen's and Llama 2's vocabularies split every digit), `cjk` (Han, kana,
 * Hangul: about a token a character), `alphabet` (Cyrillic, Greek,
 * Arabic, Hebrew and the like: vocabularies trained mostly on English cut their words short) and
 * `other` (any other script, combining marks).
 */
export type ScriptClass = 'latin' | 'symbol' | 'cjk' | 'alphabet' | 'other';

const CLASSES: readonly ScriptClass[] = ['latin', 'symbol', 'cjk', 'alphabet', 'other'];
const CJK = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}\p{scx=Bopomofo}]/u;
const LATIN = /[\p{sc=Latin}\s]/u;
const ALPHABET =
  /[\p{sc=Cyrillic}\p{sc=Greek}\p{sc=Armenian}\p{sc=Georgian}\p{sc=Hebrew}\p{sc=Arabic}\p{sc=Syriac}\p{sc=Thaana}]/u;
const SYMBOL = /[\p{N}\p{P}\p{S}]/u;

function classify(char: string): ScriptClass {
  if (CJK.test(char)) return 'cjk';
  if (LATIN.test(char)) return 'latin';
  if (ALPHABET.test(char)) return 'alphabet';
  if (SYMBOL.test(char)) return 'symbol';
  return 'other';
}

/** ASCII looked up, not matched: prompts of tens of thousands of characters are counted often. */
const ASCII_CLASSES: readonly ScriptClass[] = Array.from({ length: 128 }, (_, code) =>
  classify(String.fromCharCode(code)),
);

/** The class of one character (a code point). */
export function scriptClass(char: string): ScriptClass {
  const code = char.charCodeAt(0);
  return code < 128 ? (ASCII_CLASSES[code] as ScriptClass) : classify(char);
}

type PerClass = Record<ScriptClass, number>;

/**
 * Tokens a character takes before a server said otherwise, on the high side so that a text cut
 * to a window fits it: 3 Latin characters a token (English BPE takes ~4), 1.5 of Cyrillic or
 * Greek, one CJK character, digit or symbol a token.
 */
const DEFAULT_TOKENS_PER_CHAR: Readonly<PerClass> = { latin: 1 / 3, symbol: 1, cjk: 1, alphabet: 1 / 1.5, other: 1 };
/** The least a server's counts may lower a class to: no tokenizer packs more than this. */
const FLOOR: Readonly<PerClass> = { latin: 1 / 8, symbol: 0.25, cjk: 0.3, alphabet: 0.15, other: 0.15 };
/** The most: a UTF-8 character is at most 4 byte tokens. */
const CEILING = 4;
/** A reply teaches only the class that makes up this share of its estimate (the others' part is taken as estimated). */
const DOMINANT_SHARE = 0.75;
/** Characters of that class a reply needs to teach anything (short texts are mostly special tokens). */
const MIN_LEARNING_CHARS = 200;
/** A refusal for length raises the classes making up at least this share of the refused texts. */
const REFUSED_SHARE = 0.1;
/** What a refusal raises them by. */
const REFUSAL_STRETCH = 1 / 0.7;

/**
 * How many tokens a text takes on a server whose tokenizer we cannot run, estimated per script
 * class (one ratio for all underestimates CJK, Cyrillic and code by half or more), and corrected
 * per endpoint by what the server counts: its `/tokenize` on a sample at connect time
 * ({@link calibrated}), the `usage.prompt_tokens` of its replies ({@link learn}) and its
 * refusals for length ({@link stretch}).
 */
export class TokenEstimate {
  readonly #tokensPerChar: PerClass;

  constructor(tokensPerChar: Readonly<PerClass> = DEFAULT_TOKENS_PER_CHAR) {
    this.#tokensPerChar = { ...tokensPerChar };
  }

  /**
   * Fitted to a server's count of `sample` (its `/tokenize`): the Latin class takes the tokens the
   * other classes' estimates leave, since the sample is mostly Latin; the others keep their
   * defaults, which a Latin sample says nothing about.
   */
  static calibrated(sample: string, tokens: number): TokenEstimate {
    const chars = classChars([sample]);
    const others = CLASSES.reduce((n, c) => (c === 'latin' ? n : n + chars[c] * DEFAULT_TOKENS_PER_CHAR[c]), 0);
    const latin =
      chars.latin > 0 ? clamp((tokens - others) / chars.latin, FLOOR.latin, CEILING) : DEFAULT_TOKENS_PER_CHAR.latin;
    return new TokenEstimate({ ...DEFAULT_TOKENS_PER_CHAR, latin });
  }

  /** Estimated tokens of `text`, rounded up. */
  count(text: string): number {
    return Math.ceil(this.#parts(classChars([text])).total);
  }

  /** `text` cut into consecutive pieces of at most `budget` estimated tokens each (at least one character a piece). */
  cut(text: string, budget: number): string[] {
    const pieces: string[] = [];
    let piece = '';
    let tokens = 0;
    for (const char of text) {
      const cost = this.#tokensPerChar[scriptClass(char)];
      if (piece && tokens + cost > budget) {
        pieces.push(piece);
        piece = '';
        tokens = 0;
      }
      piece += char;
      tokens += cost;
    }
    return piece || pieces.length === 0 ? [...pieces, piece] : pieces;
  }

  /**
   * A server counted `counted` tokens for `texts` (`overhead` of them its own: template, special
   * tokens). The class that dominates the texts takes what the count leaves it: at once when the
   * estimate ran short, halfway when it ran long and the count is `exact`. A count from a server
   * that may have cut the texts silently (Ollama) is only a lower bound, so not exact.
   */
  learn(texts: readonly string[], counted: number, overhead: number, exact: boolean): void {
    const chars = classChars(texts);
    const { parts, total } = this.#parts(chars);
    const dominant = CLASSES.reduce((a, b) => (parts[b] > parts[a] ? b : a));
    if (total <= 0 || parts[dominant] < DOMINANT_SHARE * total || chars[dominant] < MIN_LEARNING_CHARS) return;
    const observed = (counted - overhead - (total - parts[dominant])) / chars[dominant];
    const now = this.#tokensPerChar[dominant];
    if (!(observed > 0) || (observed < now && !exact)) return;
    this.#tokensPerChar[dominant] = clamp(observed > now ? observed : (now + observed) / 2, FLOOR[dominant], CEILING);
  }

  /** The server refused `texts` as too long although the estimate fitted them: their main classes take more tokens than thought. */
  stretch(texts: readonly string[]): void {
    const { parts, total } = this.#parts(classChars(texts));
    for (const c of CLASSES) {
      if (parts[c] > 0 && parts[c] >= REFUSED_SHARE * total)
        this.#tokensPerChar[c] = Math.min(CEILING, this.#tokensPerChar[c] * REFUSAL_STRETCH);
    }
  }

  #parts(chars: PerClass): { parts: PerClass; total: number } {
    const parts = { ...chars };
    let total = 0;
    for (const c of CLASSES) total += parts[c] = chars[c] * this.#tokensPerChar[c];
    return { parts, total };
  }
}

function classChars(texts: readonly string[]): PerClass {
  const chars: PerClass = { latin: 0, symbol: 0, cjk: 0, alphabet: 0, other: 0 };
  for (const text of texts) for (const char of text) chars[scriptClass(char)]++;
  return chars;
}

function clamp(x: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, x));
}

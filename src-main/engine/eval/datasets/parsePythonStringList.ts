/**
 * Parses a Python list-of-strings literal as some datasets store answers (`"['Webuye', \"O'Neil\"]"`);
 * returns undefined when the text is anything else. A bare string is taken as a one-item list.
 */
export function parsePythonStringList(text: string): string[] | undefined {
  return strictList(text.trim()) ?? lenientList(text.trim());
}

/**
 * Some records hold a list that was never valid Python (`['I'm Sprung']`: the inner quote is not
 * escaped). Read such a list by its `', '` separators.
 */
function lenientList(s: string): string[] | undefined {
  const m = /^\[\s*'([\s\S]*)'\s*\]$/.exec(s);
  return m ? (m[1] as string).split(/'\s*,\s*'/) : undefined;
}

function strictList(s: string): string[] | undefined {
  if (!s.startsWith('[')) return s ? [s] : undefined;
  const out: string[] = [];
  let i = 1;
  const skipSpace = (): void => {
    while (i < s.length && /\s/.test(s[i] as string)) i++;
  };
  skipSpace();
  if (s[i] === ']') return i === s.length - 1 ? out : undefined;
  for (;;) {
    skipSpace();
    const quote = s[i];
    if (quote !== "'" && quote !== '"') return undefined;
    i++;
    let value = '';
    while (i < s.length && s[i] !== quote) {
      if (s[i] === '\\' && i + 1 < s.length) {
        const next = s[i + 1] as string;
        value += next === 'n' ? '\n' : next === 't' ? '\t' : next;
        i += 2;
      } else value += s[i++];
    }
    if (i >= s.length) return undefined;
    i++;
    out.push(value);
    skipSpace();
    if (s[i] === ',') {
      i++;
      skipSpace();
      if (s[i] === ']') break; // trailing comma
      continue;
    }
    if (s[i] === ']') break;
    return undefined;
  }
  return i === s.length - 1 ? out : undefined;
}

/**
 * Parses a Python list-of-strings literal as some datasets store answers (`"['Webuye', \"O'Neil\"]"`);
 * returns undefined when the text is anything else. A bare string is taken as a one-item list.
 */
export function parsePythonStringList(text: string): string[] | undefined {
  const s = text.trim();
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

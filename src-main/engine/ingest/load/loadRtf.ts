import { badInput } from '../badInput.js';
import type { LoadedText } from '../types.js';
import { tidyText } from './xmlStream.js';

/** Destinations whose content is not the document's text (tables of fonts, styles, pictures, field codes…). */
const SKIP = new Set(
  (
    'fonttbl colortbl stylesheet info pict listtable listoverridetable rsidtbl generator xmlnstbl themedata ' +
    'colorschememapping latentstyles datastore fldinst pgdsctbl listtext header headerl headerr headerf footer ' +
    'footerl footerr footerf object nonshppict shpinst ftnsep ftnsepc aftnsep aftnsepc bkmkstart bkmkend atnid ' +
    'atndate atnref atrfstart atrfend pntext pntxta pntxtb revtbl filetbl template userprops docvar mmathPr ' +
    'wgrffmtfilter pnseclvl background formfield passwordhash operator author title subject keywords comment'
  ).split(' '),
);
/** Control words that are characters. */
const CHARACTERS: Readonly<Record<string, string>> = {
  par: '\n\n',
  sect: '\n\n',
  page: '\n\n',
  line: '\n',
  tab: '\t',
  cell: '\t',
  nestcell: '\t',
  row: '\n',
  nestrow: '\n',
  emdash: '—',
  endash: '–',
  bullet: '•',
  lquote: '‘',
  rquote: '’',
  ldblquote: '“',
  rdblquote: '”',
  emspace: ' ',
  enspace: ' ',
  qmspace: ' ',
};
const CODEPAGES: Readonly<Record<number, string>> = {
  932: 'shift_jis',
  936: 'gbk',
  949: 'euc-kr',
  950: 'big5',
  10000: 'macintosh',
  20866: 'koi8-r',
  65001: 'utf-8',
};
const MAX_DEPTH = 4096;

interface Group {
  skip: boolean;
  uc: number;
  target: string[];
}

/**
 * Text of an RTF file, read by a scanner of its own: groups, control words and symbols,
 * `\'hh` bytes decoded in the document's code page (`\ansicpg`), `\uN` characters with their
 * `\ucN` fallbacks dropped; font, style and colour tables, pictures, field instructions,
 * headers and footers left out. Footnotes become `[1]` in the text and "Footnote 1: …" after
 * it; comments "Comment (author): …". Groups nested deeper than 4,096 are refused.
 */
export function loadRtf(bytes: Buffer, path: string): LoadedText {
  const src = bytes.toString('latin1');
  if (!src.startsWith('{\\rtf')) throw badInput(path, 'not an RTF file (no {\\rtf header)');
  const body: string[] = [];
  const notes: { label: string; parts: string[] }[] = [];
  let decoder = new TextDecoder('windows-1252');
  let group: Group = { skip: false, uc: 1, target: body };
  const stack: Group[] = [];
  let pending: number[] = [];
  let fallback = 0; // characters still to drop after a \uN
  let author: string[] = [];
  let lastAuthor = '';
  /** Whether the group just opened (a destination's name comes first in its group). */
  let fresh = false;
  let ignorable = false;
  const flush = () => {
    if (pending.length === 0) return;
    if (!group.skip) group.target.push(decoder.decode(Uint8Array.from(pending)));
    pending = [];
  };
  const text = (byte: number) => {
    if (fallback > 0) fallback--;
    else pending.push(byte);
  };
  const emit = (s: string) => {
    flush();
    if (!group.skip) group.target.push(s);
  };

  for (let i = 0; i < src.length; i++) {
    const ch = src[i]!;
    if (ch === '{') {
      flush();
      if (stack.length >= MAX_DEPTH) throw badInput(path, `RTF groups nested deeper than ${MAX_DEPTH}`);
      stack.push(group);
      group = { ...group };
      fresh = true;
      ignorable = false;
      continue;
    }
    if (ch === '}') {
      flush();
      if (group.target === author) lastAuthor = author.join('').trim();
      group = stack.pop() ?? group;
      fresh = false;
      continue;
    }
    if (ch === '\r' || ch === '\n') continue;
    if (ch !== '\\') {
      fresh = false;
      text(src.charCodeAt(i));
      continue;
    }
    const next = src[i + 1] ?? '';
    if (next === "'") {
      const byte = parseInt(src.slice(i + 2, i + 4), 16);
      i += 3;
      if (Number.isFinite(byte)) text(byte);
      continue;
    }
    if (!/[a-zA-Z]/.test(next)) {
      i++;
      if (next === '*') {
        ignorable = true;
        continue;
      }
      fresh = false;
      if (next === '\\' || next === '{' || next === '}') text(next.charCodeAt(0));
      else if (next === '~') emit(' ');
      else if (next === '_') emit('-');
      else if (next === '\n' || next === '\r') emit('\n\n');
      continue;
    }
    const word = /^([a-zA-Z]{1,32})(-?\d{1,10})? ?/.exec(src.slice(i + 1, i + 45))!;
    i += word[0].length;
    const name = word[1]!;
    const param = word[2] === undefined ? undefined : Number(word[2]);
    const destination = fresh;
    fresh = false;
    if (name === 'bin') {
      flush();
      i += Math.max(0, param ?? 0);
      continue;
    }
    if (fallback > 0) {
      fallback--;
      continue;
    }
    if (destination && (SKIP.has(name) || (ignorable && !['footnote', 'annotation', 'atnauthor'].includes(name)))) {
      flush();
      group.skip = true;
      continue;
    }
    switch (name) {
      case 'ansicpg':
        decoder = codepageDecoder(param);
        break;
      case 'mac':
        decoder = new TextDecoder('macintosh');
        break;
      case 'uc':
        group.uc = Math.max(0, Math.min(10, param ?? 1));
        break;
      case 'u':
        emit(String.fromCharCode(((param ?? 0) + 65536) % 65536));
        fallback = group.uc;
        break;
      case 'footnote': {
        const label = String(notes.length + 1);
        emit(`[${label}]`);
        const note = { label: `Footnote ${label}`, parts: [] };
        notes.push(note);
        group.target = note.parts;
        group.skip = false;
        break;
      }
      case 'atnauthor':
        flush();
        author = [];
        group.target = author;
        group.skip = false;
        break;
      case 'annotation': {
        flush();
        const note = { label: `Comment${lastAuthor ? ` (${lastAuthor})` : ''}`, parts: [] };
        notes.push(note);
        group.target = note.parts;
        group.skip = false;
        break;
      }
      default: {
        const character = CHARACTERS[name];
        if (character !== undefined) emit(character);
      }
    }
  }
  flush();
  const sections = [tidyText(body.join('')), ...notes.map((n) => `${n.label}: ${tidyText(n.parts.join(''))}`)];
  return { text: sections.filter((s) => s && !/: $/.test(s)).join('\n\n'), mime: 'application/rtf' };
}

function codepageDecoder(codepage: number | undefined): TextDecoder {
  const label =
    codepage === undefined
      ? 'windows-1252'
      : (CODEPAGES[codepage] ?? (codepage >= 874 && codepage <= 1258 ? `windows-${codepage}` : 'windows-1252'));
  try {
    return new TextDecoder(label);
  } catch {
    return new TextDecoder('windows-1252');
  }
}

import { entityKey, verbaliseTriple } from '../kb/index.js';

/** Relation names are UPPER_SNAKE_CASE words: "was king of" / "wasKingOf" → "WAS_KING_OF". */
export function normaliseRelation(relation: string): string {
  const words = relation
    .normalize('NFKC')
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  return words.join('_').toUpperCase();
}

/** Entity names and types: NFC, collapsed whitespace, no surrounding quotes or punctuation. */
export function normaliseName(name: string): string {
  return name
    .normalize('NFC')
    .replace(/\s+/g, ' ')
    .replace(/^[\s"'“”‘’«».,;:]+|[\s"'“”‘’«».,;:]+$/g, '')
    .trim();
}

/** Identity key of an entity name: the KB's, so "same name" means the same here and there. */
export const nameKey = entityKey;

/** Text of a triple for embeddings and BM25: the KB's verbalisation plus its description. */
export function tripleText(source: string, relation: string, target: string, description: string | null): string {
  const fact = verbaliseTriple(source, relation, target);
  return description ? `${fact}. ${description}` : fact;
}

/** A name as a model wrote it, split into the name and the other form it gave in parentheses. */
export interface SplitName {
  name: string;
  /** "Ulisse (Ulysses)" → "Ulysses"; null when there was none, or it only repeated the type ("Odysseus (Person)") or held no letter ("(1638–1715)"). */
  variant: string | null;
}

/**
 * Small models write an entity's other form, or its type, in parentheses after the name
 * ("Ulisse (Ulysses)", "Odysseus (Person)"). The name is what stands outside; the variant is
 * kept as evidence for Disambiguate (never as an alias by itself: "Paris (Texas)" is no alias).
 */
export function splitName(raw: string, type = ''): SplitName {
  const whole = normaliseName(raw);
  const m = /^(.*?)\s*[([]([^()[\]]*)[)\]]$/u.exec(whole);
  if (!m) return { name: whole, variant: null };
  const outer = normaliseName(m[1]!);
  const inner = normaliseName(m[2]!);
  if (outer === '') return { name: inner, variant: null };
  const isType = foldName(inner) === foldName(type) || foldName(inner) === foldName(m[1]!);
  return { name: outer, variant: isType || !/\p{L}/u.test(inner) ? null : inner };
}

/**
 * Letters only: NFKD with combining marks dropped (Pénélope → penelope, Telémaco → telemaco),
 * case-folded, punctuation as spaces. For lexical evidence, never as an identity key.
 */
export function foldName(name: string): string {
  return entityKey(name.normalize('NFKD').replace(/\p{M}+/gu, ''))
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Words that start a complement ("of …") in names of the corpus languages. */
const OF_WORDS = new Set([
  'of',
  'de',
  'di',
  'da',
  'du',
  'd',
  'von',
  'van',
  'der',
  'des',
  'del',
  'della',
  'dei',
  'degli',
]);

/** Words that say nothing about identity when two names share them: the complement words and these. */
const FUNCTION_WORDS = new Set([...OF_WORDS, 'the', 'and', 'for', 'with', 'from', 'den', 'les', 'los', 'las', 'und']);

/** Why two names may denote the same thing on their letters alone, or null. */
export type LexicalEvidence = 'same letters' | 'acronym' | 'same head noun';

/**
 * Lexical evidence between two names: the same letters once accents and case are folded
 * (Pénélope / Penelope), one the acronym of the other (EU / European Union), or the same head
 * proper noun (Chopin / Frédéric Chopin). A cue for the LLM, not a decision.
 */
export function lexicalEvidence(a: string, b: string): LexicalEvidence | null {
  const fa = foldName(a);
  const fb = foldName(b);
  if (fa === '' || fb === '') return null;
  if (fa === fb) return 'same letters';
  if (isAcronymOf(a, fb) || isAcronymOf(b, fa)) return 'acronym';
  // The same head proper noun ("Frédéric Chopin" / "Chopin the pianist"), when one name's proper
  // words are all in the other: not "John Smith" / "John Doe", nor "Robert Kennedy" / "Ted Kennedy"
  // (one family name, two people), nor a complement ("Adalbert of Tuscany" / "Tuscany",
  // "University of Oxford" / "Oxford": part and whole).
  const pa = properHead(a);
  const pb = properHead(b);
  if (pa === null || pb === null || pa.head !== pb.head) return null;
  const within = (x: Set<string>, y: Set<string>) => [...x].every((w) => y.has(w));
  return within(pa.words, pb.words) || within(pb.words, pa.words) ? 'same head noun' : null;
}

/**
 * The last capitalised word of four letters or more before any "the …"/"and …", folded ("Frédéric
 * Chopin" → "chopin", "Chopin the pianist" → "chopin"), with the capitalised words of three letters
 * or more before it (initials aside); null for a name with an "of …" complement.
 */
function properHead(name: string): { head: string; words: Set<string> } | null {
  const words = name.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  // "Bank of England", "Adalbert II of Tuscany": the name is the whole phrase, its head a title or a common noun.
  if (words.some((w) => OF_WORDS.has(w.toLowerCase()))) return null;
  const complement = words.findIndex((w) => FUNCTION_WORDS.has(w.toLowerCase()));
  const head = complement < 0 ? words : words.slice(0, complement);
  const capitalised = head.filter((w) => /^\p{Lu}/u.test(w));
  const proper = capitalised.filter((w) => [...w].length >= 4);
  if (proper.length === 0) return null;
  return {
    head: foldName(proper.at(-1)!),
    words: new Set(capitalised.filter((w) => [...w].length >= 3).map(foldName)),
  };
}

/** `short` (as written: letters, at least two, no spaces) is the initials of the words of `longFolded`. */
function isAcronymOf(short: string, longFolded: string): boolean {
  const letters = short.replace(/[.\s]/g, '');
  if (!/^\p{L}{2,8}$/u.test(letters) || letters !== letters.toUpperCase()) return false;
  const words = longFolded.split(' ').filter(Boolean);
  if (words.length < 2) return false;
  const initials = (ws: string[]) => ws.map((w) => [...w][0]).join('');
  const target = foldName(letters).replace(/ /g, '');
  return initials(words) === target || initials(words.filter((w) => !FUNCTION_WORDS.has(w) && w.length > 2)) === target;
}

/**
 * Whether two names are the same words with different numbers ("1960" / "1963", "Apollo 11" /
 * "Apollo 13", "2014 Winter Olympics" / "2018 Winter Olympics"): the Disambiguate prompt tells
 * the model such names are different things, so the pair is decided without a call. Thousands
 * separators and leading zeros aside ("2,000" is "2000", "July 07" is "July 7"). Never decided
 * this way: a name with no digits ("Apollo XI"), or names whose words differ too ("July 14, 1789"
 * / "1789-07-14", a month written as a word and as a number).
 */
export function differInNumber(a: string, b: string): boolean {
  const parts = (name: string): { numbers: string; words: string } => {
    const joined = name.replace(/(\d)[,.\u00a0\u202f ](?=\d{3}(?!\d))/g, '$1');
    // A set: "1789-07-07" and "7 July 1789" hold 7 twice and once.
    const numbers = [...new Set((joined.match(/\d+/g) ?? []).map((n) => n.replace(/^0+(?=\d)/, '')))].sort();
    const words = joined
      .replace(/\d+/g, ' ')
      .toLowerCase()
      .split(/[^\p{L}]+/u)
      .filter(Boolean);
    return { numbers: numbers.join(' '), words: words.join(' ') };
  };
  const [x, y] = [parts(a), parts(b)];
  return x.numbers !== '' && y.numbers !== '' && x.words === y.words && x.numbers !== y.numbers;
}

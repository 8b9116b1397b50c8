import sparqljs from 'sparqljs';
import { PolyhopError } from '../../base/errors.js';

/** The query form of a SPARQL request. */
export type SparqlForm = 'select' | 'ask' | 'construct' | 'describe' | 'update';

export interface CheckedSparql {
  form: SparqlForm;
  /** The parsed request; null only when `allowUpdate` let through text the parser refused (the target's own parser then reports it). */
  parsed: sparqljs.SparqlQuery | null;
}

const XSD = 'http://www.w3.org/2001/XMLSchema#';

/**
 * Prefixes a query may use without declaring them, as Virtuoso predeclares them: `bif:` and `sql:`
 * map to themselves so a call through them is seen for what it is. Any other undeclared prefix
 * gets a placeholder namespace (see {@link parseSparql}), so a function named through it is not
 * standard either.
 */
const PREDECLARED: Record<string, string> = {
  bif: 'bif:',
  sql: 'sql:',
  xsd: XSD,
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  owl: 'http://www.w3.org/2002/07/owl#',
};

const UNDECLARED = 'urn:polyhop:undeclared-prefix:';

/**
 * The base relative IRIs resolve against when the text declares none (sparqljs refuses them
 * otherwise): Virtuoso reads a relative function IRI such as `<TTLP>` as a SQL procedure's name.
 */
export const NO_BASE = 'http://polyhop.invalid/no-base/';

/**
 * Parses a query or update with sparqljs (SPARQL 1.1, with SPARQL-star). A prefix the text uses
 * without declaring it is given a placeholder namespace and the text parsed again, so a store's
 * predeclared prefixes (Virtuoso has dozens) do not make its queries unparseable here; relative
 * IRIs resolve against {@link NO_BASE}. Throws the parser's error (it names the line and what it
 * expected).
 */
export function parseSparql(query: string): sparqljs.SparqlQuery {
  const prefixes = { ...PREDECLARED };
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      return new sparqljs.Parser({ prefixes, baseIRI: NO_BASE, sparqlStar: true }).parse(query);
    } catch (error) {
      const unknown = error instanceof Error ? /^Unknown prefix: (.*)$/u.exec(error.message)?.[1] : undefined;
      if (unknown === undefined || unknown in prefixes) throw error;
      prefixes[unknown] = `${UNDECLARED}${encodeURIComponent(unknown)}:`;
    }
  }
  throw new PolyhopError('BAD_INPUT', 'sparql: too many undeclared prefixes');
}

/**
 * A parsed request as text again (sparqljs's generator), with what {@link parseSparql} filled in
 * undone: undeclared prefixes are written as the text wrote them, and relative IRIs stay relative.
 */
export function sparqlText(parsed: sparqljs.SparqlQuery): string {
  return new sparqljs.Generator()
    .stringify(parsed)
    .replace(
      /<urn:polyhop:undeclared-prefix:([^:>]*):([^>]*)>/gu,
      (_, prefix: string, local: string) => `${decodeURIComponent(prefix)}:${local}`,
    )
    .replaceAll(`<${NO_BASE}`, '<');
}

/**
 * The form of a request the console may run, from its parse: BAD_INPUT for text the parser
 * refuses, for an update, and for a call of any function outside SPARQL's own (built-ins and XSD
 * casts), unless `allowUpdate`. A store may give other function IRIs power: Virtuoso runs a
 * `bif:` built-in or a `sql:` procedure by that name, and takes any other function IRI for the
 * name of a SQL procedure (`bif:exec` runs an update from inside a SELECT), so a read-only target
 * refuses them all. `readOnlyWhy` ends the refusal: why this target is read-only.
 */
export function checkedSparql(
  query: string,
  allowUpdate: boolean,
  readOnlyWhy: string,
  allowService = false,
): CheckedSparql {
  let parsed: sparqljs.SparqlQuery;
  try {
    parsed = parseSparql(query);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (allowUpdate) {
      // Unlocked: the target's own parser has the last word (and may know syntax sparqljs does not).
      const form = keywordForm(query);
      if (form && !allowService && /\bservice\b/iu.test(query)) throw serviceRefused(form);
      if (form) return { form, parsed: null };
    }
    throw new PolyhopError('BAD_INPUT', `sparql: ${message}`, { details: { reason: message }, cause: error });
  }
  const form: SparqlForm = parsed.type === 'update' ? 'update' : (parsed.queryType.toLowerCase() as SparqlForm);
  if (!allowService && callsService(parsed)) throw serviceRefused(form);
  if (allowUpdate) return { form, parsed };
  if (form === 'update') {
    throw new PolyhopError('BAD_INPUT', `sparql: updates are refused unless allowUpdate is set; ${readOnlyWhy}`, {
      details: { form },
    });
  }
  const fn = nonStandardFunction(parsed);
  if (fn !== null) {
    throw new PolyhopError(
      'BAD_INPUT',
      `sparql: function ${fn} is not a SPARQL built-in; a store may run it as a procedure that writes or executes, ` +
        `so it is refused unless allowUpdate is set; ${readOnlyWhy}`,
      { details: { form, function: fn } },
    );
  }
  return { form, parsed };
}

/** {@link checkedSparql}'s form alone. */
export function checkedSparqlForm(
  query: string,
  allowUpdate: boolean,
  readOnlyWhy: string,
  allowService = false,
): SparqlForm {
  return checkedSparql(query, allowUpdate, readOnlyWhy, allowService).form;
}

/**
 * A federated query's `SERVICE <url>` makes the engine (the view's Oxigraph, or the store) fetch
 * from that URL: data leaves the machine, so it needs the user's explicit allowService, like any
 * other network use (README, Guarantees: Offline).
 */
function serviceRefused(form: SparqlForm): PolyhopError {
  return new PolyhopError(
    'NETWORK_BLOCKED',
    'sparql: SERVICE sends part of the query to another server, so it is refused unless allowService is set (Api: allowService; CLI: --allow-service)',
    { details: { form } },
  );
}

function callsService(parsed: sparqljs.SparqlQuery): boolean {
  const stack: unknown[] = [parsed];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) stack.push(...(node as unknown[]));
    else if ((node as { type?: unknown }).type === 'service') return true;
    else
      for (const value of Object.values(node as Record<string, unknown>))
        if (typeof value === 'object') stack.push(value);
  }
  return false;
}

/**
 * The first function the parsed request calls (anywhere: projections, filters, binds, group,
 * having, order, sub-queries, custom aggregates) that is neither a built-in nor an XSD cast, as
 * written for people (`bif:exec`, or `<iri>`); null when none.
 */
export function nonStandardFunction(parsed: sparqljs.SparqlQuery): string | null {
  const stack: unknown[] = [parsed];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      stack.push(...(node as unknown[]));
      continue;
    }
    const record = node as Record<string, unknown>;
    if (record.type === 'functionCall') {
      const iri = (record.function as { value?: unknown } | undefined)?.value;
      if (typeof iri !== 'string') return '(unnamed function)';
      if (!iri.startsWith(XSD)) return shown(iri);
    }
    for (const value of Object.values(record)) if (value !== null && typeof value === 'object') stack.push(value);
  }
  return null;
}

function shown(iri: string): string {
  if (iri.startsWith(UNDECLARED)) {
    const [prefix, ...local] = iri.slice(UNDECLARED.length).split(':');
    return `${decodeURIComponent(prefix ?? '')}:${local.join(':')}`;
  }
  if (iri.startsWith(NO_BASE)) return `<${iri.slice(NO_BASE.length)}>`;
  return /^(?:bif|sql):/iu.test(iri) ? iri : `<${iri}>`;
}

const UPDATE_KEYWORDS = new Set(['insert', 'delete', 'load', 'clear', 'create', 'drop', 'copy', 'move', 'add', 'with']);

/** The form by the first keyword after the prologue: only for an unlocked request the parser refused. */
function keywordForm(query: string): SparqlForm | null {
  let rest = query;
  for (;;) {
    rest = rest.replace(/^(?:\s+|#[^\n\r]*)+/u, '');
    // BASE, PREFIX, and Virtuoso's DEFINE pragmas.
    const prologue =
      /^(?:base\s*<[^>]*>|prefix\s+[^\s:]*:\s*<[^>]*>|define\s+[\w:-]+\s+(?:"[^"]*"|'[^']*'|<[^>]*>|[^\s]+))/iu.exec(
        rest,
      );
    if (!prologue) break;
    rest = rest.slice(prologue[0].length);
  }
  const word = /^[a-z]+/iu.exec(rest)?.[0].toLowerCase();
  if (word === 'select' || word === 'ask' || word === 'construct' || word === 'describe') return word;
  return word !== undefined && UPDATE_KEYWORDS.has(word) ? 'update' : null;
}

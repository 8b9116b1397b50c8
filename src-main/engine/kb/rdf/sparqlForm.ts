import { PolyhopError } from '../../base/errors.js';

/** The query form of a SPARQL request, read after its prologue (BASE/PREFIX) and comments. */
export type SparqlForm = 'select' | 'ask' | 'construct' | 'describe' | 'update';

const UPDATE_KEYWORDS = new Set(['insert', 'delete', 'load', 'clear', 'create', 'drop', 'copy', 'move', 'add', 'with']);

/** null when the text starts with none of the forms (Oxigraph then reports the syntax error). */
export function sparqlForm(query: string): SparqlForm | null {
  let rest = query;
  for (;;) {
    rest = rest.replace(/^(?:\s+|#[^\n\r]*)+/u, '');
    const prologue = /^(?:base\s*<[^>]*>|prefix\s+[^\s:]*:\s*<[^>]*>)/iu.exec(rest);
    if (!prologue) break;
    rest = rest.slice(prologue[0].length);
  }
  const word = /^[a-z]+/iu.exec(rest)?.[0].toLowerCase();
  if (word === undefined) return null;
  if (word === 'select' || word === 'ask' || word === 'construct' || word === 'describe') return word;
  return UPDATE_KEYWORDS.has(word) ? 'update' : null;
}

/**
 * The form of a query the console may run: BAD_INPUT for text that is none of the forms, and for
 * an update unless `allowUpdate` (the read-only default every SPARQL target keeps). `readOnlyWhy`
 * ends the refusal: why this target is read-only.
 */
export function checkedSparqlForm(query: string, allowUpdate: boolean, readOnlyWhy: string): SparqlForm {
  const form = sparqlForm(query);
  if (form === null) {
    throw new PolyhopError(
      'BAD_INPUT',
      'sparql: expected SELECT, ASK, CONSTRUCT, DESCRIBE or an update after the prologue',
      { details: { query: query.slice(0, 200) } },
    );
  }
  if (form === 'update' && !allowUpdate) {
    throw new PolyhopError('BAD_INPUT', `sparql: updates are refused unless allowUpdate is set; ${readOnlyWhy}`, {
      details: { form },
    });
  }
  if (!allowUpdate) {
    const vendor = vendorCall(query);
    if (vendor !== null) {
      throw new PolyhopError(
        'BAD_INPUT',
        `sparql: vendor function ${vendor} may write or execute and is refused unless allowUpdate is set; ${readOnlyWhy}`,
        { details: { form, vendor } },
      );
    }
  }
  return form;
}

/**
 * The first Virtuoso built-in (`bif:`) or SQL (`sql:`) function the query calls, outside string
 * literals and comments; null when none. Such calls can write or run commands (`bif:exec` runs an
 * update from inside a SELECT), so a read-only target refuses them all.
 */
export function vendorCall(query: string): string | null {
  // One left-to-right pass, so a quote in a comment or a '#' in an IRI cannot hide code.
  const code = query.replace(
    /#[^\n\r]*|'''[\s\S]*?'''|"""[\s\S]*?"""|'(?:[^'\\\n\r]|\\.)*'|"(?:[^"\\\n\r]|\\.)*"|<[^<>"{}|^`\\\s]*>/gu,
    (token) => (token.startsWith('<') && /^<(?:bif|sql):/iu.test(token) ? ` ${token.slice(1, -1)} ` : ' "" '),
  );
  const m = /(?:^|[^\w.:-])<?((?:bif|sql):[\w.-]*)/iu.exec(code);
  return m?.[1] ?? null;
}

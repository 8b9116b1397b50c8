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

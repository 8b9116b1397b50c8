import { PolyhopError } from '../../base/errors.js';

/**
 * Checks a KB's base IRI: absolute http(s) or urn, no characters IRIs forbid, ending in '/' or
 * '#' so minted IRIs are `<base><local>`. Returns it unchanged or throws BAD_INPUT saying why.
 */
export function checkBaseIri(iri: string): string {
  const why = baseIriProblem(iri);
  if (why)
    throw new PolyhopError('BAD_INPUT', `Base IRI "${iri.slice(0, 200)}" is not usable: ${why}`, {
      details: { baseIri: iri },
    });
  return iri;
}

function baseIriProblem(iri: string): string | null {
  if (iri.length > 2000) return 'longer than 2000 characters';
  // Forbidden in IRIs (RFC 3987 / Turtle IRIREF): controls, space, <>"{}|\^`
  if (/[\u0000-\u0020<>"{}|\\^`\u007f]/u.test(iri)) return 'contains a space, control character or one of <>"{}|\\^`';
  if (!iri.endsWith('/') && !iri.endsWith('#')) return "must end in '/' or '#'";
  if (/^https?:\/\/[^/?#]+\//iu.test(iri) || /^https?:\/\/[^/?#]+#$/iu.test(iri)) return null;
  if (/^urn:[a-z0-9][a-z0-9-]{0,31}:\S+$/iu.test(iri)) return null;
  return 'must start with http://host/, https://host/ or urn:<namespace>:';
}

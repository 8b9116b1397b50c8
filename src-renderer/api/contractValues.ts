/**
 * The few contract values the renderer needs, declared here so that it imports the contract's
 * types only and its bundle carries no engine code and no zod. Each list is a `Record<Name, true>`
 * over the contract's union, so a member missing or extra fails `npm run typecheck`; the order the
 * screens show, and the rules for a KB name and a base IRI (which tsc cannot compare), are held to the contract by
 * test/unit/renderer/contractValues.test.ts.
 */
import type { EventName, RdfFormat, StrategyName } from '../../src-main/engine/api/contract.js';

/** A union's members, in the order written. */
function members<Name extends string>(set: Record<Name, true>): Name[] {
  return Object.keys(set) as Name[];
}

export const STRATEGIES = members<StrategyName>({ dr: true, hyp: true, dapt: true, vector: true, 'llm-only': true });

export const RDF_FORMATS = members<RdfFormat>({ turtle: true, ntriples: true, nquads: true, rdfxml: true });

export const EVENT_NAMES = members<EventName>({
  'job:progress': true,
  'job:finished': true,
  'qa:token': true,
  'watch:synced': true,
  'endpoint:notice': true,
});

const KB_NAME_MAX_LENGTH = 64;
const KB_NAME_PATTERN = /^[\p{L}\p{N}][\p{L}\p{N} _.-]*$/u;

/** Whether the engine accepts `name` as a KB name (`kb:create`'s rule). */
export function isKbName(name: string): boolean {
  return name.length <= KB_NAME_MAX_LENGTH && KB_NAME_PATTERN.test(name);
}

const BASE_IRI_MAX_LENGTH = 2000;

/** Whether the engine accepts `value` as a base IRI (`kb:create`'s and `rdf:import`'s rule: an absolute URL). */
export function isBaseIri(value: string): boolean {
  return value.length <= BASE_IRI_MAX_LENGTH && URL.canParse(value.trim());
}

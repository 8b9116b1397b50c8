/**
 * The few contract values the renderer needs, declared here so that it imports the contract's
 * types only and its bundle carries no engine code and no zod. Each list is a `Record<Name, true>`
 * over the contract's union, so a member missing or extra fails `npm run typecheck`; the order the
 * screens show (which tsc cannot compare) is held to the contract by test/unit/renderer/contractValues.test.ts.
 * The KB name and IRI rules and the OCR confidence line are the engine's own (kb/kbNaming.ts, kb/ocrConfidence.ts: leaves that import nothing).
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

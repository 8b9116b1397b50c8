import type { LlmCallOptions } from '../models/Llm.js';
import type { PromptLibrary } from '../models/PromptLibrary.js';
import type { ScoredId } from '../kb/types.js';
import type { UnitFailure } from './unitFailure.js';

export interface DisambiguationEntity {
  id: number;
  name: string;
  type: string;
  /** Names it took over in earlier merges. Default: none. */
  aliases?: readonly string[];
  /** Triples it takes part in (how established its name is): breaks ties between proposed names. Default: 0. */
  facts?: number;
}

/** One merge: `mergeIds` fold into `keepId`, which is renamed to `canonicalName`. */
export interface MergeGroup {
  keepId: number;
  mergeIds: number[];
  canonicalName: string;
}

/** What Disambiguate needs from the knowledge base (the orchestrator adapts the KB to it). */
export interface DisambiguationStore {
  /** Current state of an entity, or undefined when it no longer exists (merged away). */
  entity(id: number): DisambiguationEntity | undefined;
  /** The entity holding `name` as its name or alias. */
  entityNamed(name: string): DisambiguationEntity | undefined;
  /** A short excerpt of original text where the entity is mentioned. */
  context(id: number): string;
  /** Stores entity-name vectors (the KNN index) of the entities a round compares. */
  setNameVectors(ids: readonly number[], vectors: readonly Float32Array[]): void;
  /** Nearest entities by name vector, best first (may include `vector`'s own entity). */
  nearest(vector: Float32Array, k: number): ScoredId[];
  /** Entities whose names or aliases share words with `name` (full-text, accents folded), best first. */
  lexicalNeighbours(name: string, k: number): DisambiguationEntity[];
  /** Other forms Map saw written beside the entity's name ("Ulisse (Ulysses)"). */
  variants(id: number): readonly string[];
  /** Triples the entity takes part in. */
  factCount(id: number): number;
  /**
   * Applies merges, all or none; returns each one's surviving entity id (which may differ from
   * `keepId` when the canonical name already exists).
   */
  merge(groups: readonly MergeGroup[]): number[];
}

export interface DisambiguateOptions {
  prompts: PromptLibrary;
  /**
   * Cosine similarity of name vectors from which a pair goes to the LLM. Default: 0.95 (the
   * paper's, for mxbai-embed-large); the indexing job passes the KB's calibrated value.
   */
  threshold?: number;
  /** Neighbours looked up per entity, by vector and by words each (blocking: never all pairs). Default: 10. */
  neighbours?: number;
  /**
   * Candidate pairs an entity starts per round at most, strongest evidence first (a form Map saw
   * written beside it, the same letters, an acronym, the same head noun, then name similarity).
   * Default: 3.
   */
  maxCandidatesPerEntity?: number;
  /** Pairs per LLM call (each entity written once per call, however many of its pairs it holds). Default: 24. */
  pairsPerCall?: number;
  /** Characters of context per entity. Default: 150. */
  contextChars?: number;
  /** Completion budget per call. Default: 1024. */
  maxTokens?: number;
  /** Parallel LLM calls. Default: llm.parallelism. */
  concurrency?: number;
  /** Sampling of the calls (another seed for entities asked again after a run left them undecided). Default: the Llm's. */
  sampling?: Pick<LlmCallOptions, 'temperature' | 'seed'>;
  /** A pair with no valid decision, even asked alone: it is left unmerged and reported here. */
  onFailure?: (failure: UnitFailure) => void;
  /** Progress over candidate pairs decided in the current round. */
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

export interface DisambiguateResult {
  /** Merges applied, in order, over all rounds. */
  merges: MergeGroup[];
  rounds: number;
  pairsAsked: number;
  /** Entities of pairs that got no valid decision, even asked alone: to be queued again by the next run. */
  undecided: number[];
}

/** A candidate pair and why it is one (shown to the LLM). */
export interface CandidatePair {
  a: DisambiguationEntity;
  b: DisambiguationEntity;
  evidence: string[];
}

/** A pair the model judged the same entity, with the name it proposed for both. */
export interface Confirmed {
  a: DisambiguationEntity;
  b: DisambiguationEntity;
  canonical: string;
}

/** Key of a pair of entity ids, in either order. */
export function idPair(a: number, b: number): string {
  return a < b ? `${a}:${b}` : `${b}:${a}`;
}

/** What UncooperativeLlm does to a reply, how often, and the record of each change it made. */

export type DegradationKind =
  | 'dropItem'
  | 'repeatItem'
  | 'swapItems'
  | 'foreignName'
  | 'typeSuffix'
  | 'placeholder'
  | 'gluedCitation'
  | 'reasoningPrefix'
  | 'longString'
  | 'emptyString'
  | 'thinking'
  | 'renumberedIds'
  | 'textUnderTwoIds'
  | 'fixedKeyDrift'
  | 'flippedVerdict'
  | 'inflatedScore'
  | 'sourceLanguage'
  | 'repetitionLoop'
  | 'emptyReply'
  | 'runtimeError'
  | 'cutAtMaxTokens'
  | 'contextOverflow'
  | 'wrongAllowedValue';

/**
 * Rates of the degradations drawn at random. Not among them: the limits' (a cut at `maxTokens`, a
 * prompt over the context) and `wrongAllowedValue`, what a degraded value becomes at a field whose
 * values the grammar lists (another item's value: see UncooperativeLlm's `schema`).
 */
export type DegradationRates = Record<
  Exclude<DegradationKind, 'cutAtMaxTokens' | 'contextOverflow' | 'wrongAllowedValue'>,
  number
>;

export const DEFAULT_RATES: DegradationRates = {
  dropItem: 0.15,
  repeatItem: 0.1,
  swapItems: 0.2,
  foreignName: 0.1,
  typeSuffix: 0.1,
  placeholder: 0.5,
  gluedCitation: 0.3,
  reasoningPrefix: 0.1,
  longString: 0.05,
  emptyString: 0.05,
  thinking: 0.1,
  renumberedIds: 0.1,
  textUnderTwoIds: 0.05,
  fixedKeyDrift: 0.05,
  flippedVerdict: 0.05,
  inflatedScore: 0.15,
  sourceLanguage: 0.05,
  repetitionLoop: 0.03,
  emptyReply: 0.05,
  runtimeError: 0.02,
};

/*
 * Where the rates come from: none is measured on a real model in this repository. They are set
 * from the failure modes seen when small (≤ 4B) instruction models answer batched JSON under a
 * grammar, at an order of magnitude chosen so that 50 seeds of the product test meet every kind
 * many times (the coverage test checks that) while a cooperative reply stays the most likely one:
 * - renumberedIds 0.1, textUnderTwoIds 0.05: a model that skips an item usually numbers on from
 *   the skipped one, then fills the count the grammar enforces with a copy; same order as dropItem;
 * - fixedKeyDrift 0.05: a copied vocabulary term or id rarely changes (casing, "_" as a space,
 *   "q2" as "2");
 * - flippedVerdict 0.05: a wrong yes/no from a small judge, a minority of its verdicts;
 * - inflatedScore 0.15: judges of this size score leniently far more often than harshly;
 * - sourceLanguage 0.05: a translation left in its language (the model copies its input);
 * - repetitionLoop 0.03: greedy decoding that falls into a loop and runs to maxTokens;
 * - emptyReply 0.05 (a single-item batch answered with an empty text, as emptyString);
 * - runtimeError 0.02: a call that fails in the runtime (LLM_OUTPUT_INVALID after its retry).
 */
/** One degradation made: which prompt, what, and where in the reply (a JSON path). */
export interface Degradation {
  prompt: string;
  kind: DegradationKind;
  at: string;
  /** The variables of the prompt whose reply was degraded (which chunk, which pairs): tests attribute a loss to it. */
  variables: Readonly<Record<string, string>>;
  /** The reply's batch item the degradation removed or changed, as the cooperative model wrote it (JSON replies). */
  item?: unknown;
}

import { PolyhopError } from '../base/errors.js';
import type { ReasoningMode, ReasoningStep } from './views.js';

/**
 * Which pipeline steps let a thinking model reason (Qwen3 `<think>`, gpt-oss analysis channel).
 * Extraction and rewriting (Preprocess, Map, Enrich, Reduce, translations) gain little from it
 * and would spend up to `shared.reasoningMaxTokens` per unit; deciding steps (Disambiguate's
 * same-or-not, decomposition, DR's resolution, the judges, the answers) are where it pays.
 * A step that does not reason is asked with the template's own switch off; a model whose template
 * has no switch (QwQ) reasons in every step, and one without a reasoning segment in none.
 */
export const REASONING_STEPS = {
  preprocess: { prompts: ['ingest/summarise', 'ingest/summarise-batch', 'ingest/translate'], reasons: false },
  map: { prompts: ['mder/map'], reasons: false },
  disambiguate: { prompts: ['mder/disambiguate'], reasons: true },
  enrich: { prompts: ['mder/enrich'], reasons: false },
  reduce: { prompts: ['mder/reduce'], reasons: false },
  translate: { prompts: ['qa/translate', 'eval/translate'], reasons: false },
  decompose: { prompts: ['qa/dr-decompose', 'qa/dapt-decompose', 'qa/hyp-paths'], reasons: true },
  resolve: { prompts: ['qa/dr-resolve', 'qa/dapt-subanswer', 'qa/dapt-regenerate'], reasons: true },
  judge: { prompts: ['qa/hyp-judge', 'qa/dapt-judge', 'eval/judge'], reasons: true },
  answer: { prompts: ['qa/answer', 'qa/dapt-final', 'qa/llm-only', 'models/try'], reasons: true },
} as const satisfies Record<ReasoningStep, { prompts: readonly string[]; reasons: boolean }>;

export type { ReasoningMode, ReasoningStep };
/** Per-step overrides of the defaults (the shape of `Settings.reasoning`). */
export type ReasoningPolicy = Partial<Record<ReasoningStep, ReasoningMode>>;

const STEP_OF_PROMPT = new Map<string, ReasoningStep>(
  Object.entries(REASONING_STEPS).flatMap(([step, s]) => s.prompts.map((p) => [p, step as ReasoningStep] as const)),
);

/** The step a prompt belongs to (undefined for a prompt outside the pipeline, which keeps its call's budget). */
export function reasoningStepOf(promptName: string): ReasoningStep | undefined {
  return STEP_OF_PROMPT.get(promptName);
}

/** Whether `step` reasons under `policy` (its default when the policy does not say). */
export function stepReasons(step: ReasoningStep, policy: ReasoningPolicy = {}): boolean {
  const mode = policy[step];
  return mode === undefined ? REASONING_STEPS[step].reasons : mode === 'on';
}

/** Every step with its effective mode: what the Settings screen shows. */
export function resolveReasoningPolicy(policy: ReasoningPolicy = {}): Record<ReasoningStep, ReasoningMode> {
  const out = {} as Record<ReasoningStep, ReasoningMode>;
  for (const step of Object.keys(REASONING_STEPS) as ReasoningStep[]) {
    if (policy[step] !== undefined && policy[step] !== 'on' && policy[step] !== 'off') {
      throw new PolyhopError('INVALID_REQUEST', `reasoning: step "${step}" must be "on" or "off"`, {
        details: { step, value: policy[step] },
      });
    }
    out[step] = stepReasons(step, policy) ? 'on' : 'off';
  }
  return out;
}

/**
 * The reasoning budget a call of `promptName` gets: 0 (reasoning off) when its step does not
 * reason, else the call's own budget. Prompts outside the table keep the call's budget.
 */
export function reasoningTokensFor(
  promptName: string,
  policy: ReasoningPolicy | undefined,
  callTokens: number | undefined,
): number | undefined {
  const step = reasoningStepOf(promptName);
  if (step === undefined || policy === undefined) return callTokens;
  return stepReasons(step, policy) ? callTokens : 0;
}

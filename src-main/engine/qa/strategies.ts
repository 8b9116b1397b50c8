import type { StrategyName } from './Answer.js';
import { daptStrategy } from './dapt/DaptStrategy.js';
import { drStrategy } from './dr/DrStrategy.js';
import { hypStrategy } from './hyp/HypStrategy.js';
import { llmOnlyStrategy } from './llmOnly/LlmOnlyStrategy.js';
import type { Strategy } from './types.js';
import { vectorStrategy } from './vector/VectorStrategy.js';

/** Every answering strategy by its contract name. */
export const STRATEGY_REGISTRY: Readonly<Record<StrategyName, Strategy>> = Object.freeze({
  dr: drStrategy,
  hyp: hypStrategy,
  dapt: daptStrategy,
  vector: vectorStrategy,
  'llm-only': llmOnlyStrategy,
});

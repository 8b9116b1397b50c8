/** Question answering: strategies over a knowledge base, with citations and a trace. */
export { ask } from './ask.js';
export { STRATEGY_REGISTRY } from './strategies.js';
export { QA_DEFAULTS, resolveQaSettings, flattenQaSettings } from './settings.js';
export type { QaSettings } from './settings.js';
export type { AskOptions, QaContext, QaKb, Strategy, StrategyResult } from './types.js';
export { guessLanguage, type LanguageGuess, type LanguageHints } from './language.js';
/** @internal */
export { QaRun, StepScope } from './QaRun.js';
/** @internal */
export type { EvidenceItem } from './EvidencePool.js';
export { rewriteFollowUp, rewriteProblem, type EarlierTurn, type RewriteOptions } from './followUp.js';
export { threadMarkdown, threadJson } from './threadExport.js';
export { estimateQuestion, estimateQuestions, MEASURED_QUESTION_TOKENS } from './questionEstimate.js';
export type { QuestionEstimate, QuestionTokens } from './questionEstimate.js';

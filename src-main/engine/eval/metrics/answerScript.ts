import type { DatasetFormat } from '../types.js';

/**
 * The official evaluation script whose EM/F1 rules a dataset is scored by. All four share SQuAD
 * v1.1's `normalize_answer`; they differ only at the edges:
 *
 * - `squad`: best over the gold answers; an empty prediction or gold scores F1 0.
 * - `hotpotqa`, `2wiki`: the yes/no/noanswer rule: when either side normalises to `yes`, `no`
 *   or `noanswer` and the two differ, F1 is 0 ("No, it is not." vs `no` is 0, not 0.4).
 *   2Wiki takes the best over its gold aliases; HotpotQA has one gold, so the best over one.
 * - `musique`: when either side has no tokens, F1 is 1 if both have none, else 0.
 */
export type AnswerScript = 'squad' | 'hotpotqa' | '2wiki' | 'musique';

export const ANSWER_SCRIPTS: Record<AnswerScript, string> = {
  squad: 'SQuAD v1.1 evaluate-v1.1.py',
  hotpotqa: 'HotpotQA hotpot_evaluate_v1.py',
  '2wiki': '2WikiMultihopQA 2wikimultihop_evaluate_v1.1.py',
  musique: 'MuSiQue metrics/answer.py',
};

/** The script of a dataset format: its own where it has one, SQuAD's otherwise (XQuAD, AfriQA, MSE-KG, CSV/JSONL). */
export function answerScriptFor(format: DatasetFormat): AnswerScript {
  switch (format) {
    case 'hotpotqa':
      return 'hotpotqa';
    case '2wiki':
      return '2wiki';
    case 'musique':
      return 'musique';
    default:
      return 'squad';
  }
}

const YES_NO = new Set(['yes', 'no', 'noanswer']);

/** HotpotQA/2Wiki: true when the yes/no/noanswer rule zeroes F1 for this (normalised) pair. */
export function yesNoMismatch(script: AnswerScript, prediction: string, gold: string): boolean {
  if (script !== 'hotpotqa' && script !== '2wiki') return false;
  return prediction !== gold && (YES_NO.has(prediction) || YES_NO.has(gold));
}

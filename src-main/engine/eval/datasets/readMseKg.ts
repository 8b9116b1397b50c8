import { z } from 'zod';
import { answerList, type PendingItem } from './PendingItem.js';
import { parseRecord, readJsonDocument, badInput } from './records.js';

const CompetencyQuestion = z.looseObject({
  id: z.union([z.string(), z.number()]),
  question: z.string().min(1),
  ground_truth: z.string(),
});

/**
 * MSE-KG competency questions (`competency_questions.json`: `[{id, question, ground_truth}]`).
 * The reference answers are free text (`;`-separated lists, numbered lines), kept whole: the
 * HyP-KGRAG paper scores them with ROUGE, BLEU and embedding similarity.
 */
export async function readMseKgQuestions(file: string): Promise<PendingItem[]> {
  const doc = await readJsonDocument(file);
  if (!Array.isArray(doc)) throw badInput({ file }, 'expected a JSON list of competency questions');
  return doc.map((value, i) => {
    const q = parseRecord(CompetencyQuestion, value, { file, record: i });
    const id = String(q.id);
    const item = { id, question: q.question, answers: answerList(q.ground_truth), language: 'en' };
    if (item.answers.length === 0) throw badInput({ file, record: i }, 'empty ground truth');
    return { id, build: () => item };
  });
}

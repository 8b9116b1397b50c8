import { z } from 'zod';
import { answerList, joinSentences, type PendingItem } from './PendingItem.js';
import { badInput, parseRecord, type RecordPlace } from './records.js';

/** HotpotQA distractor format, also used by 2WikiMultiHopQA (HopRAG JSONL and HippoRAG/KAG JSON list). */
const DistractorRecord = z.looseObject({
  _id: z.union([z.string(), z.number()]),
  question: z.string().min(1),
  answer: z.string(),
  context: z.array(z.tuple([z.string(), z.array(z.string())])),
  supporting_facts: z.array(z.tuple([z.string(), z.number().int()])).default([]),
});

export function readDistractorRecord(value: unknown, place: RecordPlace, language: string): PendingItem {
  const r = parseRecord(DistractorRecord, value, place);
  const id = String(r._id);
  const titles = new Set(r.context.map(([title]) => title));
  const missing = r.supporting_facts.find(([title]) => !titles.has(title));
  if (missing) throw badInput(place, `supporting fact "${missing[0]}" is not among the question's context paragraphs`);
  return {
    id,
    build(passages) {
      const idOfTitle = new Map<string, string>();
      for (const [title, sentences] of r.context) idOfTitle.set(title, passages.add(title, joinSentences(sentences)));
      const supporting = [...new Set(r.supporting_facts.map(([title]) => idOfTitle.get(title) as string))];
      return { id, question: r.question, answers: answerList(r.answer), language, supportingPassageIds: supporting };
    },
  };
}

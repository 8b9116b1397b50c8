import { z } from 'zod';
import { answerList, type PendingItem } from './PendingItem.js';
import { badInput, parseRecord, type RecordPlace } from './records.js';

const MusiqueRecord = z.looseObject({
  id: z.string(),
  question: z.string().min(1),
  answer: z.string(),
  answer_aliases: z.array(z.string()).default([]),
  paragraphs: z.array(
    z.looseObject({
      idx: z.number().int(),
      title: z.string(),
      paragraph_text: z.string(),
      is_supporting: z.boolean().default(false),
    }),
  ),
  question_decomposition: z
    .array(
      z.looseObject({
        question: z.string(),
        answer: z.string(),
        paragraph_support_idx: z.number().int().nullable().optional(),
      }),
    )
    .default([]),
});

/** MuSiQue (original format, HopRAG JSONL and HippoRAG JSON list), with its gold decomposition. */
export function readMusiqueRecord(value: unknown, place: RecordPlace, language: string): PendingItem {
  const r = parseRecord(MusiqueRecord, value, place);
  const byIdx = new Map(r.paragraphs.map((p) => [p.idx, p]));
  const dangling = r.question_decomposition.find(
    (d) => d.paragraph_support_idx != null && !byIdx.has(d.paragraph_support_idx),
  );
  if (dangling)
    throw badInput(
      place,
      `decomposition step "${dangling.question}" points at missing paragraph ${dangling.paragraph_support_idx}`,
    );
  return {
    id: r.id,
    build(passages) {
      const idOf = new Map(r.paragraphs.map((p) => [p.idx, passages.add(p.title, p.paragraph_text)]));
      return {
        id: r.id,
        question: r.question,
        answers: answerList(r.answer, r.answer_aliases),
        language,
        supportingPassageIds: [
          ...new Set(r.paragraphs.filter((p) => p.is_supporting).map((p) => idOf.get(p.idx) as string)),
        ],
        decomposition: r.question_decomposition.map((d) => {
          const supportingPassageId = d.paragraph_support_idx == null ? undefined : idOf.get(d.paragraph_support_idx);
          return supportingPassageId === undefined
            ? { question: d.question, answer: d.answer }
            : { question: d.question, answer: d.answer, supportingPassageId };
        }),
      };
    },
  };
}

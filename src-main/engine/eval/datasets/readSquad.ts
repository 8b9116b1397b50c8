import { z } from 'zod';
import { answerList, type PendingItem } from './PendingItem.js';
import { badInput, parseRecord } from './records.js';

const SquadDocument = z.looseObject({
  data: z.array(
    z.looseObject({
      title: z.string(),
      paragraphs: z.array(z.looseObject({ context: z.string(), qas: z.array(z.unknown()) })),
    }),
  ),
});
const SquadQuestion = z.looseObject({
  id: z.union([z.string(), z.number()]),
  question: z.string().min(1),
  answers: z.array(z.looseObject({ text: z.string() })).min(1),
});

/** SQuAD v1.1 JSON (XQuAD, SQuAD-it): one question per `qas` entry, its paragraph as context and supporting passage. */
export function readSquadDocument(doc: unknown, file: string, language: string): PendingItem[] {
  const parsed = SquadDocument.safeParse(doc);
  if (!parsed.success)
    throw badInput(
      { file },
      `not SQuAD JSON: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`,
    );
  const out: PendingItem[] = [];
  for (const article of parsed.data.data) {
    for (const paragraph of article.paragraphs) {
      const context = paragraph.context.replace(/^\uFEFF/, '');
      for (const qa of paragraph.qas) {
        const q = parseRecord(SquadQuestion, qa, { file, record: out.length });
        const id = String(q.id);
        out.push({
          id,
          build(passages) {
            const passageId = passages.add(article.title, context);
            return {
              id,
              question: q.question,
              answers: answerList(q.answers.map((a) => a.text)),
              language,
              context,
              supportingPassageIds: [passageId],
            };
          },
        });
      }
    }
  }
  return out;
}

import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { answerList, type PendingItem } from './PendingItem.js';
import { parsePythonStringList } from './parsePythonStringList.js';
import { badInput, parseRecord, readJsonLines, type RecordPlace } from './records.js';
import { toLanguageCode } from './languageCode.js';

const AfriqaQuery = z.looseObject({
  id: z.union([z.string(), z.number()]),
  question: z.string().min(1),
  answers: z.string(),
  lang: z.string(),
  translated_question: z.string().optional(),
  translated_answer: z.string().optional(),
});
const AfriqaGoldPassage = z.looseObject({
  id: z.union([z.string(), z.number()]),
  title: z.string().nullable(),
  context: z.string(),
  question_lang: z.string().optional(),
});

/**
 * AfriQA queries (`queries.afriqa.<lang>.en.<split>.jsonl`): questions in an African language with
 * human English translations, answered from English Wikipedia. Questions without an answer are left out. The gold passages, where the
 * split has them, are read from the sibling `gold_span_passages.…` file and joined on id + question.
 */
export async function readAfriqa(
  file: string,
  signal?: AbortSignal,
): Promise<{ items: PendingItem[]; passageLanguage: string; unanswerable: number }> {
  const gold = new Map<string, { title: string; text: string; question?: string }>();
  const goldFile = join(dirname(file), basename(file).replace(/^queries\./, 'gold_span_passages.'));
  if (goldFile !== file && existsSync(goldFile)) {
    for await (const { value, line } of readJsonLines(goldFile, signal)) {
      const p = parseRecord(AfriqaGoldPassage, value, { file: goldFile, line });
      // A few gold passages have no title; name them after their query so they stay distinct.
      const title = p.title ?? `AfriQA passage ${p.id}`;
      gold.set(
        String(p.id),
        p.question_lang === undefined
          ? { title, text: p.context }
          : { title, text: p.context, question: p.question_lang },
      );
    }
  }
  const items: PendingItem[] = [];
  let unanswerable = 0;
  for await (const { value, line } of readJsonLines(file, signal)) {
    const place: RecordPlace = { file, line };
    const q = parseRecord(AfriqaQuery, value, place);
    const id = String(q.id);
    const answers = answerList(pythonList(q.answers, place, 'answers'));
    if (answers.length === 0) {
      unanswerable++; // the dev and train splits hold unanswerable questions (`"[]"`); no metric can score them
      continue;
    }
    const language = toLanguageCode(q.lang);
    const english = q.translated_question
      ? {
          question: q.translated_question,
          answers: answerList(q.translated_answer ? pythonList(q.translated_answer, place, 'translated_answer') : []),
        }
      : undefined;
    const passage = gold.get(id);
    items.push({
      id,
      build(passages) {
        const supporting =
          passage && (passage.question === undefined || passage.question === q.question)
            ? [passages.add(passage.title, passage.text)]
            : undefined;
        return {
          id,
          question: q.question,
          answers,
          language,
          ...(supporting ? { supportingPassageIds: supporting } : {}),
          ...(english && english.answers.length > 0 ? { translations: { en: english } } : {}),
        };
      },
    });
  }
  return { items, passageLanguage: 'en', unanswerable };
}

function pythonList(text: string, place: RecordPlace, field: string): string[] {
  const list = parsePythonStringList(text);
  if (!list) throw badInput(place, `field "${field}" is not a list of strings: ${text.slice(0, 100)}`);
  return list;
}

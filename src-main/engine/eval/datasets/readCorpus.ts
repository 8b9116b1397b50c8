import { z } from 'zod';
import { joinSentences } from './PendingItem.js';
import type { PassageSet } from './PassageSet.js';
import { badInput, parseRecord, readJsonDocument } from './records.js';

const ListPassage = z.looseObject({ title: z.string(), text: z.string() });
const TitleMapCorpus = z.record(z.string(), z.array(z.string()));

/**
 * A HippoRAG corpus: `[{title, text}]` (2Wiki, MuSiQue) or `{title: [sentences]}` (HotpotQA's
 * legacy corpus). Adds every passage to `passages`; returns how many records were read.
 */
export async function readCorpus(file: string, passages: PassageSet): Promise<number> {
  const doc = await readJsonDocument(file);
  if (Array.isArray(doc)) {
    doc.forEach((value: unknown, i) => {
      const p = parseRecord(ListPassage, value, { file, record: i });
      passages.add(p.title, p.text);
    });
    return doc.length;
  }
  const map = TitleMapCorpus.safeParse(doc);
  if (!map.success)
    throw badInput({ file }, 'expected a corpus: a list of {title, text} or an object of title → sentence list');
  for (const [title, sentences] of Object.entries(map.data)) passages.add(title, joinSentences(sentences));
  return Object.keys(map.data).length;
}

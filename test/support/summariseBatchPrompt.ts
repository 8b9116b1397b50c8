import type { ScriptRule } from './ScriptedLlm.js';

/** One `<document id title>` block of an `ingest/summarise-batch` prompt's `passages` (see mder/preprocessBatch.ts). */
export interface BatchedPassage {
  id: number;
  title: string;
  /** The chunk's fenced text, as the single-chunk prompt's `chunk` holds it. */
  chunk: string;
}

const BLOCK = /<document id="(\d+)" title="([^"]*)">\n([\s\S]*?)\n<\/document>/g;

/** The passages a batched Preprocess prompt asks about, in its order: what a scripted model reads of it. */
export function batchedPassages(passages: string): BatchedPassage[] {
  return [...passages.matchAll(BLOCK)].map(([, id, title, chunk]) => ({
    id: Number(id),
    title: title!,
    chunk: chunk!,
  }));
}

/** The variables the single-chunk prompt (`ingest/summarise`) would hold for one passage of a batch: no neighbours. */
export function singlePromptVariables(
  batch: Readonly<Record<string, string>>,
  passage: BatchedPassage,
): Record<string, string> {
  return {
    language: batch.language!,
    outputLanguage: batch.outputLanguage!,
    before: '',
    after: '',
    chunk: passage.chunk,
  };
}

/**
 * The rule answering the batched Preprocess prompt as `single` answers `ingest/summarise`, passage
 * by passage: each entry is its passage's own id and title and the text `single` writes for that
 * chunk alone. A script says once how its model rewrites a chunk, and both forms of the prompt get
 * it; it applies where `single` applies to every passage of the batch.
 *
 * @example
 * const summarise: ScriptRule = { prompt: 'ingest/summarise', reply: (v) => ({ text: v.chunk! }) };
 * new ScriptedLlm([summarise, summariseBatchRule(summarise), ...]);
 */
export function summariseBatchRule(single: ScriptRule): ScriptRule {
  if (single.prompt !== 'ingest/summarise')
    throw new Error(`summariseBatchRule: ${single.prompt} is not ingest/summarise`);
  const each = (v: Readonly<Record<string, string>>) =>
    batchedPassages(v.passages!).map((passage) => ({ passage, variables: singlePromptVariables(v, passage) }));
  return {
    prompt: 'ingest/summarise-batch',
    ...(single.when ? { when: (v) => each(v).every((p) => single.when!(p.variables)) } : {}),
    reply: (v, prompt, sampling) => ({
      passages: each(v).map(({ passage, variables }) => ({
        id: passage.id,
        title: passage.title,
        text: (single.reply(variables, { ...prompt, variables }, sampling) as { text: string }).text,
      })),
    }),
  };
}

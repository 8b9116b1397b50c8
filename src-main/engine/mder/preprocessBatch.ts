import type { Llm } from '../models/Llm.js';
import { fence } from '../base/fence.js';
import { askInBatches, type BatchResult } from './askInBatches.js';
import { languageName } from '../ingest/preprocess/index.js';
import type { PreprocessOptions } from '../ingest/preprocess/index.js';

/** One chunk of a batch: a document of one chunk (no neighbours to window), with its document's title. */
export interface PreprocessBatchItem {
  title: string;
  text: string;
}

export interface PreprocessBatchOptions extends Pick<PreprocessOptions, 'prompts' | 'sampling' | 'signal'> {
  /** Chunks summarised per call at most. */
  chunksPerCall: number;
  /** Completion budget of one chunk's text at most (the budget of a single-chunk call). Default: 1024. */
  maxTokens?: number;
}

/** Tokens of a batch entry's JSON beyond its text (id, title, keys). */
const ENTRY_OVERHEAD = 48;

/**
 * Preprocess for several chunks of one language in one call (`ingest/summarise-batch`): the
 * instructions and chat template are paid once per call instead of once per chunk. The English
 * text of each chunk is matched to it by id and checked by its document's title (askInBatches):
 * a text under a drifted id, a repeated or a missing entry is asked again alone, and what still
 * fails is in `misses` (the caller asks those chunks with the single-chunk prompt).
 */
export function preprocessBatch(
  llm: Llm,
  items: readonly PreprocessBatchItem[],
  language: string | null,
  options: PreprocessBatchOptions,
): Promise<BatchResult> {
  const cap = options.maxTokens ?? 1024;
  const title = (item: PreprocessBatchItem): string => fence(item.title).replace(/"/g, "'");
  return askInBatches(llm, {
    items,
    render: (batch) =>
      options.prompts.render('ingest/summarise-batch', {
        language: languageName(language),
        outputLanguage: 'English',
        passages: batch
          .map((item, i) => `<document id="${i + 1}" title="${title(item)}">\n${fence(item.text)}\n</document>`)
          .join('\n'),
      }),
    listKey: 'passages',
    textKey: 'text',
    keyField: 'title',
    keyOf: title,
    // A faithful rewrite is about as long as its source: half as much again, up to a single call's budget.
    maxTokens: (batch) =>
      batch.reduce((t, item) => t + Math.min(cap, Math.ceil(llm.countTokens(item.text) * 1.5)) + ENTRY_OVERHEAD, 0),
    maxItemsPerCall: options.chunksPerCall,
    sampling: options.sampling,
    signal: options.signal,
  });
}

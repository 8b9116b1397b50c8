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

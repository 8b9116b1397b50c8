/** One question of a benchmark, whatever file format it came from. */
export interface EvalItem {
  /** Unique within the dataset (the file's id, or `record-N`). */
  id: string;
  question: string;
  /** Gold answer first, then its aliases; metrics take the best match over all of them. */
  answers: string[];
  /** ISO 639-1 code (639-3 where there is none) of `question` and `answers`. */
  language: string;
  /** Ids of the {@link EvalPassage}s that support the answer, where the dataset marks them. */
  supportingPassageIds?: string[];
  /** Gold sub-questions (MuSiQue). */
  decomposition?: { question: string; answer: string; supportingPassageId?: string }[];
  /** The passage text given with the question (SQuAD-style, CSV/JSONL `context`). */
  context?: string;
  /** Human translations shipped with the dataset (AfriQA), preferred over LLM translation. */
  translations?: Record<string, { question: string; answers: string[] }>;
}

/** A passage the knowledge base is built from. */
export interface EvalPassage {
  /** Unique within the dataset; the title, suffixed `#2`, `#3`… when one title has several texts. */
  id: string;
  title: string;
  text: string;
}

/** What a benchmark's knowledge base is made of. */
export type EvalKbSource =
  | { kind: 'passages'; passages: EvalPassage[]; language: string }
  /** A ready-made graph to import (MSE-KG), not to index. */
  | { kind: 'rdf'; path: string; format: 'turtle' | 'ntriples' | 'nquads' | 'rdfxml'; language: string };

/** The data set formats the readers take (the `eval:run` request names one). */
export const DATASET_FORMATS = [
  'hotpotqa',
  '2wiki',
  'musique',
  'hipporag-corpus',
  'mse-kg',
  'xquad',
  'afriqa',
  'csv',
  'jsonl',
] as const;
export type DatasetFormatName = (typeof DATASET_FORMATS)[number];
export type DatasetFormat = DatasetFormatName;

export interface EvalDataset {
  /** Short label for report rows, e.g. `hotpotqa`. */
  name: string;
  format: DatasetFormat;
  /** The file the questions came from. */
  path: string;
  items: EvalItem[];
  source: EvalKbSource;
  /** What the reader left out and why (e.g. unanswerable questions), for the report. */
  notes: string[];
}

/** A written evaluation report: its folder, its Markdown and its result rows. */
export interface EvalReportView {
  outDir: string;
  markdown: string;
  rows: Record<string, unknown>[];
}

import { PolyhopError } from '../base/errors.js';
import type { ChunkRecord, DocumentRecord, KnowledgeBase } from '../kb/index.js';

/** A chunk of the run without its text: the text is read from the KB when a unit needs it. */
export interface ChunkRef {
  readonly id: number;
  readonly documentId: number;
  readonly ord: number;
  /** Its language as detected at ingest (null: undetected). */
  readonly language: string | null;
  /** Has its summary and English text. */
  preprocessed: boolean;
}

/**
 * The documents and chunks one run works on, with per-document chunk order for windowed context.
 * Only references stay in memory (texts would grow with the corpus: ~800 MB at 20,000 documents).
 */
export class IndexingWork {
  readonly chunks: ChunkRef[] = [];
  readonly #kb: KnowledgeBase;
  readonly #docs: Map<number, DocumentRecord>;
  readonly #byDoc = new Map<number, ChunkRef[]>();
  readonly #byId = new Map<number, ChunkRef>();

  constructor(kb: KnowledgeBase, docs: readonly DocumentRecord[]) {
    this.#kb = kb;
    this.#docs = new Map(docs.map((d) => [d.id, d]));
    for (const d of docs) {
      const refs = kb.documents
        .chunksOfDocument(d.id)
        .sort((a, b) => a.ord - b.ord)
        .map((c): ChunkRef => ({
          id: c.id,
          documentId: c.documentId,
          ord: c.ord,
          language: c.language,
          preprocessed: c.englishText !== null,
        }));
      this.#byDoc.set(d.id, refs);
      for (const ref of refs) {
        this.chunks.push(ref);
        this.#byId.set(ref.id, ref);
      }
    }
  }

  ref(id: number): ChunkRef {
    return this.#byId.get(id)!;
  }

  /** The chunk as stored now; NOT_FOUND if it was deleted while the job ran (the unit fails, the job goes on). */
  load(ref: ChunkRef): ChunkRecord {
    const chunk = this.#kb.documents.getChunk(ref.id);
    if (!chunk)
      throw new PolyhopError('NOT_FOUND', `${this.unitName(ref)} was deleted while indexing`, {
        details: { chunkId: ref.id },
      });
    return chunk;
  }

  document(ref: ChunkRef): DocumentRecord {
    return this.#docs.get(ref.documentId)!;
  }

  neighbours(ref: ChunkRef): { previous: ChunkRecord | null; next: ChunkRecord | null } {
    const list = this.#byDoc.get(ref.documentId)!;
    const i = list.indexOf(ref);
    const at = (j: number): ChunkRecord | null => (list[j] ? (this.#kb.documents.getChunk(list[j].id) ?? null) : null);
    return { previous: at(i - 1), next: at(i + 1) };
  }

  /** The only chunk of its document: it has no neighbours to window, so it can share a call with others. */
  alone(ref: ChunkRef): boolean {
    return this.#byDoc.get(ref.documentId)!.length === 1;
  }

  unitName(ref: ChunkRef): string {
    return `chunk ${ref.ord} of "${this.document(ref).path}"`;
  }
}

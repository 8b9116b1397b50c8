import type { Embedder } from '../../../src-main/engine/models/Embedder.js';
import { KnowledgeBase } from '../../../src-main/engine/kb/KnowledgeBase.js';
import { verbaliseTriple } from '../../../src-main/engine/kb/verbaliseTriple.js';
import { seededRandom } from '../../unit/kb/kbFixtures.js';

/**
 * The `qa` bench's synthetic MDER-shaped KB: `n` entities of 10 classes, 2 triples each over 50
 * relations, one chunk per 10 entities, every other document in Italian with its English text,
 * summaries, every vector family and the FTS indexes, written through the KnowledgeBase API in
 * batches as an indexing job writes.
 */
const CLASSES = ['Person', 'City', 'Island', 'Organization', 'Event', 'Work', 'Place', 'Group', 'God', 'Ship'];
const RELATIONS = Array.from(
  { length: 50 },
  (_, i) =>
    ['RULED', 'MARRIED_TO', 'SON_OF', 'VISITED', 'FOUGHT', 'BUILT', 'WROTE', 'SAILED_TO', 'MET', 'LED'][i % 10]! +
    (i >= 10 ? `_${i}` : ''),
);

/** `n` distinct two-word names, the same for the same `n`. */
export function entityNames(n: number): string[] {
  const random = seededRandom(3);
  const syllables = [
    'ka',
    'lo',
    'mi',
    'ne',
    'tu',
    'ra',
    'si',
    'po',
    've',
    'dan',
    'tor',
    'mel',
    'gri',
    'sha',
    'qu',
    'ex',
    'bel',
    'nor',
  ];
  const word = (): string => {
    const w = Array.from(
      { length: 2 + Math.floor(random() * 2) },
      () => syllables[Math.floor(random() * syllables.length)],
    ).join('');
    return w[0]!.toUpperCase() + w.slice(1);
  };
  const names: string[] = [];
  const seen = new Set<string>();
  while (names.length < n) {
    const name = `${word()} ${word()}`;
    if (!seen.has(name)) {
      seen.add(name);
      names.push(name);
    }
  }
  return names;
}

/** A synthetic MDER-shaped KB through the KnowledgeBase API, in batches as an indexing job writes. */
export async function buildKb(file: string, names: readonly string[], embedder: Embedder): Promise<KnowledgeBase> {
  const kb = KnowledgeBase.open(file, { create: { name: 'bench', baseIri: 'urn:polyhop:kb:bench/' } });
  kb.vectors.setEmbedder(embedder.identity, embedder.dimension);
  const n = names.length;
  const batch = 10_000;
  const ids: number[] = new Array(n);
  const put = async (
    kind: 'chunk' | 'chunk_original' | 'entity_name' | 'entity_summary' | 'triple',
    rows: { id: number; text: string }[],
  ): Promise<void> => {
    const vectors = await embedder.embed(rows.map((r) => r.text));
    kb.vectors.putVectors(
      kind,
      rows.map((r, i) => ({ id: r.id, vector: vectors[i]! })),
    );
    if (kind === 'chunk' || kind === 'triple') kb.textIndex.indexText(kind, rows);
  };
  for (let start = 0; start < n; start += batch) {
    const end = Math.min(n, start + batch);
    kb.transaction(() => {
      for (let i = start; i < end; i++) ids[i] = kb.graph.upsertEntity(names[i]!, CLASSES[i % CLASSES.length]!);
    });
    await put(
      'entity_name',
      names.slice(start, end).map((text, j) => ({ id: ids[start + j]!, text })),
    );
  }
  const edges = (i: number): [number, string][] => [
    [(i * 7919 + 1) % n, RELATIONS[i % RELATIONS.length]!],
    [(i * 104_729 + 3) % n, RELATIONS[(i + 7) % RELATIONS.length]!],
  ];
  for (let start = 0; start < n; start += batch) {
    const end = Math.min(n, start + batch);
    const chunkRows: { id: number; text: string }[] = [];
    const originalRows: { id: number; text: string; italian: boolean }[] = [];
    const tripleRows: { id: number; text: string }[] = [];
    const summaryRows: { id: number; text: string }[] = [];
    kb.transaction(() => {
      for (let d = start; d < end; d += 100) {
        const italian = (d / 100) % 2 === 1;
        const doc = kb.documents.addDocument({
          path: `/bench/${d}.txt`,
          title: `doc ${d}`,
          hash: `${d}`,
          mime: 'text/plain',
          size: 1,
          language: italian ? 'it' : 'en',
        });
        const facts = (c: number, say: (i: number, t: number, r: string) => string): string => {
          const first = d + c * 10;
          return Array.from({ length: Math.min(10, end - first) }, (_, j) => first + j)
            .flatMap((i) => edges(i).map(([t, r]) => `${say(i, t, r)}.`))
            .join(' ');
        };
        const count = Math.ceil(Math.min(100, end - d) / 10);
        const english = Array.from({ length: count }, (_, c) =>
          facts(c, (i, t, r) => verbaliseTriple(names[i]!, r, names[t]!)),
        );
        const texts = italian
          ? Array.from({ length: count }, (_, c) =>
              facts(c, (i, t, r) => `${names[i]!} ${italianRelation(r)} ${names[t]!}`),
            )
          : english;
        let offset = 0;
        const chunks = kb.documents.replaceChunks(
          doc.id,
          texts.map((text, ord) => {
            const c = {
              ord,
              text,
              language: italian ? 'it' : 'en',
              startOffset: offset,
              endOffset: offset + text.length,
              page: null,
            };
            offset += text.length + 1;
            return c;
          }),
        );
        for (const [c, chunk] of chunks.entries()) {
          if (italian) kb.documents.updateChunk(chunk.id, { englishText: english[c]! });
          chunkRows.push({ id: chunk.id, text: english[c]! });
          originalRows.push({ id: chunk.id, text: chunk.text, italian });
          for (let i = d + c * 10; i < Math.min(end, d + c * 10 + 10); i++) {
            const facts: string[] = [];
            for (const [t, r] of edges(i)) {
              const id = kb.graph.addTriple({ sourceId: ids[i]!, relation: r, targetId: ids[t]!, chunkId: chunk.id });
              const description = `${verbaliseTriple(names[i]!, r, names[t]!)}, as the chronicle of ${names[t]!.split(' ')[0]} tells.`;
              kb.graph.setTripleDescription(id, description);
              tripleRows.push({ id, text: verbaliseTriple(names[i]!, r, names[t]!) }); // the linear verbalisation alone, as planEmbedding indexes it
              facts.push(description);
            }
            const summary = `${names[i]} (${CLASSES[i % CLASSES.length]}): ${facts.join(' ')}`;
            kb.graph.setEntitySummary(ids[i]!, summary);
            summaryRows.push({ id: ids[i]!, text: summary });
          }
        }
      }
    });
    await put('chunk', chunkRows);
    // As planEmbedding writes them: every chunk's text as written, original-language vectors for the Italian ones only.
    kb.textIndex.indexText('chunk_original', originalRows);
    await put(
      'chunk_original',
      originalRows.filter((r) => r.italian),
    );
    await put('triple', tripleRows);
    await put('entity_summary', summaryRows);
    if ((start / batch) % 10 === 9) console.log(`  … ${end.toLocaleString('en')} entities`);
  }
  return kb;
}

const ITALIAN_VERBS: Record<string, string> = {
  RULED: 'governò',
  MARRIED_TO: 'sposò',
  SON_OF: 'era figlio di',
  VISITED: 'visitò',
  FOUGHT: 'combatté',
  BUILT: 'costruì',
  WROTE: 'scrisse a',
  SAILED_TO: 'navigò verso',
  MET: 'incontrò',
  LED: 'guidò',
};

/** The relation as an Italian verb ("RULED_12" → "governò (12)"). */
function italianRelation(relation: string): string {
  const [, verb, n] = /^(.*?)(?:_(\d+))?$/.exec(relation)!;
  return `${ITALIAN_VERBS[verb!] ?? verb!.toLowerCase()}${n ? ` (${n})` : ''}`;
}

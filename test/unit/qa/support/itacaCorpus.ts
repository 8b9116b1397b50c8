import { KnowledgeBase } from '../../../../src-main/engine/kb/index.js';
import { planEmbedding } from '../../../../src-main/engine/mder/planEmbedding.js';
import type { Embedder } from '../../../../src-main/engine/models/Embedder.js';
import type { ScriptRule } from '../../../support/ScriptedLlm.js';
import { languageRule } from './qaScript.js';

/**
 * A small Italian/English corpus for DaPT's two corpora (seed 002, 2.3: a sub-question retrieves
 * from the corpus in its own language). Under the n-gram test embedder, which matches surface
 * forms as a real embedder matches a query best in the language it is written in, the Italian
 * question (worded with other inflections than the text) shares no word with the Italian chunk and
 * little with its English translation (which uses other words): only the chunks as written
 * (original-language vectors) find it for the Italian sub-question, and the English text for the
 * English one.
 */
export const WEAVING = {
  it: 'Penelope tesseva di giorno una tela funeraria per il vecchio Laerte e di notte la disfaceva.',
  en: 'By day the wife of Odysseus wove a burial shroud for old Laertes, and at night she unpicked it.',
};
/** Other chunks, Italian (with their English text) and English. */
export const OTHERS: { text: string; language: string; english: string | null }[] = [
  {
    text: 'Telemaco salpò verso Pilo per chiedere a Nestore notizie del padre.',
    language: 'it',
    english: 'Telemachus sailed to Pylos to ask Nestor for news of his father.',
  },
  {
    text: 'I proci banchettavano ogni sera nella reggia consumando i beni di Ulisse.',
    language: 'it',
    english: "Every evening the suitors feasted in the palace, eating up Odysseus's goods.",
  },
  {
    text: 'Il porcaro Eumeo accolse il mendicante nella sua capanna.',
    language: 'it',
    english: 'The swineherd Eumaeus welcomed the beggar into his hut.',
  },
  {
    text: 'Argo, il vecchio cane, riconobbe il padrone e morì.',
    language: 'it',
    english: 'Argos, the old dog, recognised his master and died.',
  },
  {
    text: 'Euriclea lavò i piedi allo straniero e vide la cicatrice.',
    language: 'it',
    english: 'Eurycleia washed the stranger’s feet and saw the scar.',
  },
  { text: 'Athena disguised herself as Mentor to guide Telemachus.', language: 'en', english: null },
  { text: 'The Phaeacians carried Odysseus home to Ithaca while he slept.', language: 'en', english: null },
  { text: 'Polyphemus the Cyclops was blinded with a sharpened stake.', language: 'en', english: null },
];
export const QUESTION = {
  it: 'Chi disfece nottetempo la tessitura funebre?',
  en: 'Who unpicked the burial shroud at night?',
};

/** A model that answers a sub-question with the weaver when the passages shown to it say who wove. */
export function itacaRules(): ScriptRule[] {
  const weaver = (passages: string): string | null =>
    /Penelope/.test(passages) ? 'Penelope' : /wife of Odysseus/.test(passages) ? 'the wife of Odysseus' : null;
  return [
    languageRule,
    { prompt: 'qa/translate', reply: () => ({ english: QUESTION.en }) },
    {
      prompt: 'qa/dapt-decompose',
      reply: (v) => ({
        subQuestions: [
          { id: '1', question: v.question!.includes(QUESTION.it) ? QUESTION.it : QUESTION.en, dependsOn: [] },
        ],
      }),
    },
    {
      prompt: 'qa/dapt-subanswer',
      reply: (v) => ({ answer: weaver(v.passages!) ?? '', found: weaver(v.passages!) !== null }),
    },
    {
      prompt: 'qa/dapt-judge',
      reply: (v) => ({
        consistent: true,
        sufficient: /Penelope|wife of Odysseus/.test(`${v.answerSource} ${v.answerEnglish}`),
      }),
    },
    {
      prompt: 'qa/dapt-regenerate',
      reply: (v) => ({ answer: weaver(v.passages!) ?? '', found: weaver(v.passages!) !== null }),
    },
    {
      prompt: 'qa/dapt-verify',
      reply: (v) => ({ supported: weaver(v.passages!) === v.answer, sufficient: weaver(v.passages!) === v.answer }),
    },
    {
      prompt: 'qa/dapt-final',
      reply: (v) =>
        /→ Penelope/.test(v.chain!)
          ? { answer: 'Penelope [1].', short: 'Penelope' }
          : { answer: 'Non lo so.', short: '' },
    },
  ];
}

/** Every row of the corpus, the weaving chunk first. */
export const ITACA_ROWS = [{ text: WEAVING.it, language: 'it', english: WEAVING.en as string | null }, ...OTHERS];

/** The corpus in a new KB at `file` (see {@link fillItacaKb}). */
export async function buildItacaKb(
  file: string,
  embedder: Embedder,
): Promise<{ kb: KnowledgeBase; weavingChunk: number }> {
  const kb = KnowledgeBase.open(file, { create: { name: 'itaca', baseIri: 'https://example.org/itaca/' } });
  return { kb, weavingChunk: await fillItacaKb(kb, embedder) };
}

/** Adds the corpus to an empty KB, one chunk per document, embedded as indexing does; returns the weaving chunk's id. */
export async function fillItacaKb(kb: KnowledgeBase, embedder: Embedder): Promise<number> {
  kb.vectors.setEmbedder(embedder.identity, embedder.dimension);
  let weavingChunk = 0;
  for (const [i, row] of ITACA_ROWS.entries()) {
    const doc = kb.documents.addDocument({
      path: `/itaca/${i}.txt`,
      title: `canto ${i}`,
      hash: `h${i}`,
      mime: 'text/plain',
      size: row.text.length,
      language: row.language,
    });
    const [chunk] = kb.documents.replaceChunks(doc.id, [
      { ord: 0, text: row.text, language: row.language, startOffset: 0, endOffset: row.text.length, page: null },
    ]);
    if (row.english) kb.documents.updateChunk(chunk!.id, { englishText: row.english });
    if (i === 0) weavingChunk = chunk!.id;
  }
  await planEmbedding(kb, embedder).run(() => {});
  return weavingChunk;
}

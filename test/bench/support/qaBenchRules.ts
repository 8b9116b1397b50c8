import type { ScriptRule } from '../../support/ScriptedLlm.js';

/** Hops after the first one, in the order a decomposition chains them. */
const FURTHER_HOPS = [
  { relation: 'MARRIED_TO', ask: (x: string) => `Who was the spouse of ${x}?` },
  { relation: 'BORN_IN', ask: (x: string) => `Where was ${x} born?` },
  { relation: 'FOUNDED_BY', ask: (x: string) => `Who founded ${x}?` },
  { relation: 'FOUGHT', ask: (x: string) => `Which war did ${x} fight in?` },
];

/** A stable whole number in [min, max] for a text: plans of varying size, the same in every run. */
function sizeFor(text: string, min: number, max: number): number {
  let h = 2166136261;
  for (const c of text) h = Math.imul(h ^ c.codePointAt(0)!, 16777619);
  return min + ((h >>> 0) % (max - min + 1));
}

/**
 * A zero-latency model that answers every QA prompt plausibly from its variables, with plans of the
 * size a real decomposition gives (issue 23): DR 2–4 triples, DaPT 3–5 sub-questions, HyP two
 * paths of 2–3 triples, and a DaPT judge that rejects every third sub-answer, so regenerations run.
 */
export function qaBenchRules(): ScriptRule[] {
  const subject = (q: string): string => /(?:of|di) ([A-Z]\w+ [A-Z]\w+)\?$/.exec(q)?.[1] ?? q;
  const firstName = (text: string): string => /\] (?:\w+ · )?([A-Z]\w+ [A-Z]\w+)/.exec(text)?.[1] ?? 'unknown';
  let judged = 0;
  const chain = (q: string, hops: number) => [
    { subject: subject(q), relation: 'RULED', object: '?X1' },
    ...FURTHER_HOPS.slice(0, hops - 1).map((hop, i) => ({
      subject: `?X${i + 1}`,
      relation: hop.relation,
      object: `?X${i + 2}`,
    })),
  ];
  return [
    // The language tie-break (short, name-heavy questions): the detector's first candidate.
    { prompt: 'qa/language', reply: (v) => ({ language: /^(\w+)/.exec(v.candidates!)![1] }) },
    {
      prompt: 'qa/translate',
      reply: (v) => ({ english: `Who was the spouse of the ruler of ${subject(v.question!)}?` }),
    },
    { prompt: 'qa/dr-decompose', reply: (v) => ({ triples: chain(v.question!, sizeFor(v.question!, 2, 4)) }) },
    // The first name the candidates' summaries mention besides the anchor (a value that is the anchor is asked again).
    {
      prompt: 'qa/dr-resolve',
      reply: (v) => ({
        reasoning: 'first candidate',
        value:
          [...v.candidates!.matchAll(/\b([A-Z][a-z]+ [A-Z][a-z]+)\b/g)]
            .map((m) => m[1]!)
            .find((name) => name !== v.anchor) ?? null,
        supporting: [1, 2],
      }),
    },
    {
      prompt: 'qa/hyp-paths',
      reply: (v) => {
        const x = subject(v.question!);
        const hops = [
          { subject: x, relation: 'ruled by', object: 'Person' },
          { subject: 'Person', relation: 'married to', object: 'Person' },
          { subject: 'Person', relation: 'born in', object: 'City' },
        ].slice(0, sizeFor(v.question!, 2, 3));
        const backward = [...hops]
          .reverse()
          .map((t) => ({ subject: t.object, relation: `${t.relation} (inverse)`, object: t.subject }));
        return {
          paths: [
            { direction: 'forward', triples: hops },
            { direction: 'backward', triples: backward },
          ],
        };
      },
    },
    {
      prompt: 'qa/hyp-judge',
      reply: (v) => ({
        scores: [...v.candidates!.matchAll(/^\[(\d+)\]/gm)].map((m) => ({
          id: Number(m[1]),
          directness: Number(m[1]) % 2 === 0 ? 2 : 0,
          entityClarity: 2,
          contextRelevance: 1,
        })),
      }),
    },
    {
      prompt: 'qa/dapt-decompose',
      reply: (v) => {
        const n = sizeFor(v.question!, 3, 5);
        return {
          subQuestions: [
            { id: '1', question: `Who ruled ${subject(v.question!)}?`, dependsOn: [] },
            ...FURTHER_HOPS.slice(0, n - 1).map((hop, i) => ({
              id: String(i + 2),
              question: hop.ask(`#${i + 1}`),
              dependsOn: [String(i + 1)],
            })),
          ],
        };
      },
    },
    { prompt: 'qa/dapt-subanswer', reply: (v) => ({ answer: firstName(v.passages!), found: true }) },
    { prompt: 'qa/dapt-judge', reply: () => ({ consistent: ++judged % 3 !== 0, sufficient: true }) },
    { prompt: 'qa/dapt-regenerate', reply: (v) => ({ answer: firstName(v.passages!), found: true }) },
    { prompt: 'qa/dapt-verify', reply: () => ({ supported: true, sufficient: true }) },
    { prompt: 'qa/answer', reply: () => ({ answer: 'The answer [1].', short: 'The answer' }) },
    { prompt: 'qa/dapt-final', reply: () => ({ answer: 'The answer [1].', short: 'The answer' }) },
    { prompt: 'qa/llm-only', reply: () => ({ answer: 'An answer.', short: 'An answer' }) },
  ];
}

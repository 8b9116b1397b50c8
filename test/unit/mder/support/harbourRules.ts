import type { ScriptRule } from '../../../support/ScriptedLlm.js';

/**
 * Map and Enrich rules for the hub-entity scripts (Odysseus landing at "Harbour k"): Map finds
 * every harbour in the chunk, Enrich gives each fact `description(k)`.
 */
export function harbourRules(description: (k: number) => string): ScriptRule[] {
  return [
    {
      prompt: 'mder/map',
      reply: (v) => ({
        triples: [...v.chunk!.matchAll(/Harbour (\d+)/g)].map((m) => ({
          subject: 'Odysseus',
          subjectType: 'Person',
          relation: 'LANDED_AT',
          object: m[0],
          objectType: 'Harbour',
        })),
      }),
    },
    {
      prompt: 'mder/enrich',
      reply: (v) => ({
        descriptions: [...v.triples!.matchAll(/^(\d+)\. .+ \| (\S+) \| Harbour (\d+)$/gm)].map(([, id, r, k]) => ({
          id: Number(id),
          relation: r!,
          object: `Harbour ${k}`,
          description: description(Number(k)),
        })),
      }),
    },
  ];
}

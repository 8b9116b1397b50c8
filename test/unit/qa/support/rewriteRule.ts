import type { ScriptRule } from '../../../support/ScriptedLlm.js';

/**
 * The follow-up rewrite as a model that follows the prompt makes it, read off the prompt's
 * variables: the latest name the earlier answers give (a capitalised word, or a run of Han
 * characters) stands in for the follow-up's pronoun, or, with none, is put where the follow-up
 * leaves its subject out ("e dove è nata?" → "Dove è nata Penelope?", "¿y dónde nació?" →
 * "¿Dónde nació Penelope?"). A French inverted pronoun keeps its place after the name
 * ("et où est-elle née ?" → "Où Penelope est-elle née ?").
 */
export const rewriteRule: ScriptRule = {
  prompt: 'qa/rewrite',
  reply: (v) => {
    const names = [...v.conversation!.matchAll(/^A: .*?(\p{Lu}\p{Ll}+|\p{Script=Han}+)/gmu)].map((m) => m[1]!);
    const name = names.at(-1) ?? '';
    const followUp = v.followUp!.replace(/^([¿¡]?)(?:and|e|et|y|und)\s+/iu, '$1');
    const inverted = followUp.replace(/(\p{L}+)-(?:elle|il)\b/u, (m) => `${name} ${m}`);
    const replaced =
      inverted !== followUp
        ? inverted
        : followUp.replace(/\b(?:she|he|her|his|sie|er|elle|il)\b/iu, name).replace(/[她他]/u, name);
    const standalone = replaced !== followUp ? replaced : followUp.replace(/\s*([?？])$/u, ` ${name}$1`);
    return { standalone: standalone.replace(/\p{L}/u, (c) => c.toUpperCase()) };
  },
};

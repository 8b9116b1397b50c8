import type { ScriptRule } from '../../../support/ScriptedLlm.js';

/**
 * The follow-up rewrite as a model that follows the prompt makes it, read off the prompt's
 * variables: the latest name the earlier answers give stands in for the follow-up's pronoun, or,
 * with none, is put where the follow-up leaves its subject out ("e dove è nata?" → "Dove è nata
 * Penelope?").
 */
export const rewriteRule: ScriptRule = {
  prompt: 'qa/rewrite',
  reply: (v) => {
    const names = [...v.conversation!.matchAll(/^A: .*?(\p{Lu}\p{Ll}+)/gmu)].map((m) => m[1]!);
    const name = names.at(-1) ?? '';
    const followUp = v.followUp!.replace(/^(?:and|e|et|y|und)\s+/iu, '');
    const replaced = followUp.replace(/\b(?:she|he|her|his)\b/iu, name);
    const standalone = replaced !== followUp ? replaced : followUp.replace(/\s*([?？])$/u, ` ${name}$1`);
    return { standalone: standalone.charAt(0).toUpperCase() + standalone.slice(1) };
  },
};

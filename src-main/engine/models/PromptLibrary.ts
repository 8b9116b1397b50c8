import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { PolyhopError } from '../base/errors.js';
import type { RenderedPrompt } from './Llm.js';

/**
 * Prompt files live in the top-level `prompts/` folder, one per task:
 *
 * ```
 * version: 3
 * --- system
 * You extract facts …
 * --- user
 * Text: {{chunk}}
 * ```
 *
 * Rendering throws on a missing or unused variable, so prompt and code cannot drift apart.
 */
export class PromptLibrary {
  readonly #dir: string;
  readonly #cache = new Map<string, ParsedPrompt>();

  constructor(dir: string) {
    this.#dir = dir;
  }

  render(name: string, variables: Record<string, string | number>): RenderedPrompt {
    const prompt = this.#load(name);
    const vars: Record<string, string> = {};
    for (const [k, v] of Object.entries(variables)) vars[k] = String(v);
    const used = new Set<string>();
    const fill = (template: string): string =>
      template.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (_, key: string) => {
        const value = vars[key];
        if (value === undefined) throw new PolyhopError('INTERNAL', `Prompt ${name} needs variable "${key}"`);
        used.add(key);
        return value;
      });
    const system = fill(prompt.system);
    const user = fill(prompt.user);
    const unused = Object.keys(vars).filter((k) => !used.has(k));
    if (unused.length > 0)
      throw new PolyhopError('INTERNAL', `Prompt ${name} does not use variable(s): ${unused.join(', ')}`);
    return { name, version: prompt.version, system, user, variables: vars };
  }

  #load(name: string): ParsedPrompt {
    const cached = this.#cache.get(name);
    if (cached) return cached;
    const file = join(this.#dir, `${name}.md`);
    if (!/^[a-z0-9/_-]+$/i.test(name) || !existsSync(file))
      throw new PolyhopError('NOT_FOUND', `No prompt file ${name}.md in ${this.#dir}`);
    const parsed = parsePromptFile(readFileSync(file, 'utf8'), file);
    this.#cache.set(name, parsed);
    return parsed;
  }
}

interface ParsedPrompt {
  version: string;
  system: string;
  user: string;
}

export function parsePromptFile(text: string, file: string): ParsedPrompt {
  const match = /^version:\s*(\S+)\s*\n--- system\n([\s\S]*?)\n--- user\n([\s\S]*)$/.exec(text.replace(/\r\n/g, '\n'));
  if (!match)
    throw new PolyhopError('BAD_INPUT', `${file}: expected "version: N", "--- system" and "--- user" sections`);
  return { version: match[1] as string, system: (match[2] as string).trim(), user: (match[3] as string).trim() };
}

import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { PolyhopError } from '../base/errors.js';
import { DEFAULT_DOCUMENT_LIMIT_SETTINGS } from '../ingest/load/DocumentLoader.js';
import { ocrLanguageInstalled } from '../ingest/load/ocr/ocrLanguages.js';
import { endpointConfigSchema } from '../models/endpoints/EndpointConfig.js';
import { REASONING_STEPS, resolveReasoningPolicy, type ReasoningStep } from '../models/reasoningPolicy.js';
import { modelSelectionSchema, STRATEGIES, type Settings } from './contract.js';

const settingsSchema = z.object({
  defaultStrategy: z.enum(STRATEGIES).default('dr'),
  answerLanguage: z
    .string()
    .regex(/^[a-z]{2,3}$/)
    .nullable()
    .default(null),
  uiLanguage: z
    .string()
    .regex(/^[a-z]{2,3}$/)
    .nullable()
    .default(null),
  theme: z.enum(['system', 'light', 'dark']).default('system'),
  concurrency: z.number().int().min(1).max(64).default(4),
  thresholds: z.enum(['calibrated', 'paper']).default('calibrated'),
  strategyParams: z.record(z.string(), z.number()).default({}),
  reasoning: z
    .partialRecord(z.enum(Object.keys(REASONING_STEPS) as [ReasoningStep, ...ReasoningStep[]]), z.enum(['on', 'off']))
    .default({})
    .transform((policy) => resolveReasoningPolicy(policy)),
  generationModel: modelSelectionSchema.nullable().default(null),
  embeddingModel: modelSelectionSchema.nullable().default(null),
  endpoints: z
    .array(endpointConfigSchema)
    .max(64)
    .refine((list) => new Set(list.map((e) => e.id)).size === list.length, 'endpoint ids must be unique')
    .default([]),
  documentLimits: z
    .object({
      memoryMb: z.number().int().min(64).max(65_536).default(DEFAULT_DOCUMENT_LIMIT_SETTINGS.memoryMb),
      timeSeconds: z.number().min(1).max(86_400).default(DEFAULT_DOCUMENT_LIMIT_SETTINGS.timeSeconds),
      docxXmlMb: z.number().int().min(1).max(4096).default(DEFAULT_DOCUMENT_LIMIT_SETTINGS.docxXmlMb),
    })
    .strict()
    .default({ ...DEFAULT_DOCUMENT_LIMIT_SETTINGS }),
  ocrLanguages: z
    .array(z.string().regex(/^[a-z_]{2,16}$/))
    .min(1)
    .max(64)
    .nullable()
    .default(null),
});

/** User settings in `<dataDir>/settings.json`, validated on read and write, written atomically. */
export class SettingsStore {
  readonly #file: string;
  #settings: Settings;

  constructor(file: string) {
    this.#file = file;
    this.#settings = this.#read();
  }

  get(): Settings {
    return structuredClone(this.#settings);
  }

  update(patch: Record<string, unknown>): Settings {
    const merged = settingsSchema.safeParse({ ...this.#settings, ...patch });
    if (!merged.success)
      throw new PolyhopError(
        'INVALID_REQUEST',
        `Invalid settings: ${merged.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
    const unknown = Object.keys(patch).filter((k) => !(k in settingsSchema.shape));
    if (unknown.length > 0) throw new PolyhopError('INVALID_REQUEST', `Unknown setting(s): ${unknown.join(', ')}`);
    // Checked when saved, not when read: a language uninstalled later is skipped by OCR, not a broken settings file.
    const missing = (merged.data.ocrLanguages ?? []).filter((code) => !ocrLanguageInstalled(code));
    if (missing.length > 0)
      throw new PolyhopError(
        'INVALID_REQUEST',
        `Invalid settings: ocrLanguages: not installed: ${missing.join(', ')} (npm i -E @tesseract.js-data/<code>)`,
      );
    this.#settings = merged.data;
    mkdirSync(dirname(this.#file), { recursive: true });
    const tmp = `${this.#file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.#settings, null, 2));
    renameSync(tmp, this.#file);
    return this.get();
  }

  #read(): Settings {
    let raw: unknown = {};
    try {
      raw = JSON.parse(readFileSync(this.#file, 'utf8'));
    } catch {
      // Missing or unreadable settings fall back to defaults; the next write repairs the file.
    }
    const parsed = settingsSchema.safeParse(raw);
    return parsed.success ? parsed.data : settingsSchema.parse({});
  }
}

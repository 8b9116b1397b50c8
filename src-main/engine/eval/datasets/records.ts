import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { z } from 'zod';
import { throwIfAborted } from '../../base/abort.js';
import { PolyhopError } from '../../base/errors.js';

/** Where a record sits in its file, for error messages: `file.jsonl line 12` or `file.json record 3`. */
export interface RecordPlace {
  file: string;
  line?: number;
  record?: number;
}

export function describePlace(place: RecordPlace): string {
  if (place.line !== undefined) return `${place.file} line ${place.line}`;
  if (place.record !== undefined) return `${place.file} record ${place.record}`;
  return place.file;
}

export function badInput(place: RecordPlace, reason: string, cause?: unknown): PolyhopError {
  return new PolyhopError('BAD_INPUT', `${describePlace(place)}: ${reason}`, { details: { ...place, reason }, cause });
}

/** Validates one record against its schema; the error names the file, line/record and field. */
export function parseRecord<S extends z.ZodType>(schema: S, value: unknown, place: RecordPlace): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? `field "${issue.path.join('.')}": ` : '';
  throw badInput(place, `${field}${issue?.message ?? 'invalid record'}`);
}

/** Reads a whole JSON document (JSON has no record boundaries to stream on); parse errors say where. */
export async function readJsonDocument(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new PolyhopError('NOT_FOUND', `${file}: cannot read the dataset file`, { details: { file }, cause: error });
  }
  try {
    return JSON.parse(stripBom(text));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /at position (\d+)/.exec(message);
    const line = position ? text.slice(0, Number(position[1])).split('\n').length : undefined;
    throw badInput(line === undefined ? { file } : { file, line }, `not valid JSON (${message.split('\n')[0]})`, error);
  }
}

/** Streams a JSON Lines file one record at a time (blank lines skipped), so large files never load whole. */
export async function* readJsonLines(
  file: string,
  signal?: AbortSignal,
): AsyncGenerator<{ value: unknown; line: number }> {
  const stream = createReadStream(file, { encoding: 'utf8' });
  const opened = new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  try {
    await opened;
  } catch (error) {
    throw new PolyhopError('NOT_FOUND', `${file}: cannot read the dataset file`, { details: { file }, cause: error });
  }
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const raw of lines) {
      line++;
      throwIfAborted(signal);
      const text = line === 1 ? stripBom(raw) : raw;
      if (!text.trim()) continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        throw badInput(
          { file, line },
          `not valid JSON (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
          error,
        );
      }
      yield { value, line };
    }
  } finally {
    lines.close();
    stream.destroy();
  }
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

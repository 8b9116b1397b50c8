import { appendFileSync, existsSync, mkdirSync, readFileSync, truncateSync } from 'node:fs';
import { dirname } from 'node:path';
import { PolyhopError } from '../base/errors.js';

/**
 * An append-only JSON Lines file that survives a kill: each record is one synchronous append,
 * and a torn last line (the process died mid-write) is cut off when the file is read back, so
 * the next append starts on a clean line. A bad line anywhere else is corruption and fails.
 */
export class JsonlFile<T> {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  readAll(): T[] {
    if (!existsSync(this.path)) return [];
    const text = readFileSync(this.path, 'utf8');
    const out: T[] = [];
    let start = 0;
    let line = 0;
    while (start < text.length) {
      const end = text.indexOf('\n', start);
      line++;
      const raw = text.slice(start, end === -1 ? text.length : end);
      if (raw.trim()) {
        try {
          out.push(JSON.parse(raw) as T);
        } catch (error) {
          if (end !== -1 && text.slice(end + 1).trim() !== '') {
            throw new PolyhopError('BAD_INPUT', `${this.path} line ${line}: not valid JSON; the file is damaged`, {
              details: { file: this.path, line },
              cause: error,
            });
          }
          truncateSync(this.path, Buffer.byteLength(text.slice(0, start)));
          break;
        }
      }
      if (end === -1) {
        // A complete record without its newline: add it so the next append starts a new line.
        if (raw.trim()) appendFileSync(this.path, '\n');
        break;
      }
      start = end + 1;
    }
    return out;
  }

  append(record: T): void {
    mkdirSync(dirname(this.path), { recursive: true });
    appendFileSync(this.path, `${JSON.stringify(record)}\n`);
  }
}

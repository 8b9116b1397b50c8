import { createReadStream } from 'node:fs';
import { StreamParser } from 'n3';

const FORMATS = { turtle: 'Turtle', ntriples: 'N-Triples', nquads: 'N-Quads' } as const;
export type RdfSyntax = keyof typeof FORMATS;

/**
 * How many statements N3.js reads in a file: an independent, W3C-conformant parser that shares
 * no code with Oxigraph, so a serialisation bug of ours cannot hide behind the parser that wrote
 * it. Rejects, naming the file, on the first syntax error.
 */
export function countStatements(file: string, syntax: RdfSyntax = 'turtle'): Promise<number> {
  return new Promise((resolve, reject) => {
    let count = 0;
    const parser = new StreamParser({ format: FORMATS[syntax] });
    const fail = (error: Error): void => reject(new Error(`${file}: ${error.message}`));
    createReadStream(file).on('error', fail).pipe(parser);
    parser.on('data', () => count++);
    parser.on('error', fail);
    parser.on('end', () => resolve(count));
  });
}

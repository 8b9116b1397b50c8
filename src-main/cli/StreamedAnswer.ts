/** Printed where a restarted stream (a retried reply) begins again: a terminal cannot take text back. */
export const RESTART_NOTE = '[the reply was unusable; the model answers again]';

/**
 * `polyhop ask` on a terminal: the explained answer printed as the model writes it. The stream is
 * provisional, so at the end the finished answer is printed too when it reads otherwise than what
 * streamed since the last restart; then the short answer.
 */
export class StreamedAnswer {
  readonly #out: { write(text: string): unknown };
  /** What streamed since the last restart. */
  #current = '';

  constructor(out: { write(text: string): unknown }) {
    this.#out = out;
  }

  /** One `qa:token` event. */
  readonly onToken = (text: string, reset: boolean): void => {
    if (reset) this.#restart();
    if (!text) return;
    this.#current += text;
    this.#out.write(text);
  };

  /** The end of the answer once the job is done: the answer itself unless it streamed as it is, then the short answer. */
  finish(answer: { text: string; shortAnswer?: string }): void {
    if (this.#current.trim() !== answer.text) {
      this.#restart();
      this.#out.write(answer.text);
    }
    if (answer.shortAnswer) this.#out.write(`\n\nShort answer: ${answer.shortAnswer}`);
  }

  #restart(): void {
    if (this.#current) this.#out.write(`\n\n${RESTART_NOTE}\n\n`);
    this.#current = '';
  }
}

import { JsonStringFieldStream } from '../models/JsonStringFieldStream.js';
import type { LlmCallOptions } from '../models/Llm.js';

type StreamListeners = Pick<LlmCallOptions, 'onTextChunk' | 'onTextRestart'>;

/**
 * The final answer's text as the user watches it grow: the `answer` field of the final step's
 * JSON reply, decoded while the model writes it. What streamed is provisional; {@link settle}
 * makes it say exactly the finished answer, restarting the stream when it says something else
 * (a retried reply, an empty answer's reason, a retrieval-only list).
 */
export class AnswerStream {
  readonly #listeners: StreamListeners;
  #streamed = '';

  constructor(listeners: StreamListeners) {
    this.#listeners = listeners;
  }

  /** Call options that stream `field` of a JSON call's reply into this stream (none when nobody listens: evaluation runs). */
  jsonField(field: string): StreamListeners {
    if (!this.#listeners.onTextChunk) return {};
    let reader = new JsonStringFieldStream(field, (text) => this.#write(text));
    return {
      onTextChunk: (chunk) => reader.write(chunk),
      onTextRestart: () => {
        this.#restart();
        reader = new JsonStringFieldStream(field, (text) => this.#write(text));
      },
    };
  }

  /** Makes what streamed read `text` (surrounding whitespace aside, which the answer trims). */
  settle(text: string): void {
    if (this.#streamed.trim() === text) return;
    this.#restart();
    this.#write(text);
  }

  #write(text: string): void {
    if (!text) return;
    this.#streamed += text;
    this.#listeners.onTextChunk?.(text);
  }

  #restart(): void {
    if (!this.#streamed) return;
    this.#streamed = '';
    this.#listeners.onTextRestart?.();
  }
}

import { decodeRate, type GpuThroughput } from '../../src-main/engine/models/gpuThroughput.js';

interface GpuJob {
  prefill: number;
  decode: number;
  done: () => void;
}

const EPSILON = 1e-6;

/**
 * The time a llama.cpp server's GPU takes for its calls, from published llama.cpp throughput:
 * benchmarks give a server this instead of a fixed delay, so a call's time grows with its prompt
 * and output tokens and parallel slots share one GPU the way batched decoding does.
 *
 * The figures and their sources are a {@link GpuThroughput}. The model (processor sharing, advanced
 * on the real clock at every arrival and finish):
 * - Prompt processing is compute-bound, so batching does not speed it up: a call's prompt takes
 *   `promptTokens / promptTokensPerSecond` of the whole GPU, first come first served, and the
 *   decoding slots wait meanwhile (llama-server mixes them into one batch; this errs slow).
 * - Decoding is memory-bound: b slots decoding together step at `decodeTokensPerSecond[b - 1]`
 *   tokens per second in all, each slot getting 1/b of it. The published figures grow
 *   sub-linearly with b (one weight read serves b tokens, until compute and the KV reads catch
 *   up); past the table the last figure holds.
 *
 * {@link run} resolves when a call's prompt and output tokens would have been processed.
 */
export class SimulatedGpu {
  readonly profile: GpuThroughput;
  readonly #prefilling: GpuJob[] = [];
  #decoding: GpuJob[] = [];
  #last = performance.now();
  #timer: NodeJS.Timeout | undefined;

  constructor(profile: GpuThroughput) {
    this.profile = profile;
  }

  run(promptTokens: number, completionTokens: number): Promise<void> {
    return new Promise((resolve) => {
      this.#advance();
      const job = { prefill: promptTokens, decode: completionTokens, done: resolve };
      if (job.prefill > 0) this.#prefilling.push(job);
      else if (job.decode > 0) this.#decoding.push(job);
      else resolve();
      this.#schedule();
    });
  }

  #decodeRate(): number {
    return decodeRate(this.profile, this.#decoding.length) / this.#decoding.length;
  }

  /** Spends the time since the last event on the work in hand. */
  #advance(): void {
    const now = performance.now();
    let seconds = (now - this.#last) / 1000;
    this.#last = now;
    while (seconds > 0) {
      const head = this.#prefilling[0];
      if (head) {
        const used = Math.min(seconds, head.prefill / this.profile.promptTokensPerSecond);
        head.prefill -= used * this.profile.promptTokensPerSecond;
        seconds -= used;
        if (head.prefill > EPSILON) continue;
        this.#prefilling.shift();
        if (head.decode > 0) this.#decoding.push(head);
        else head.done();
        continue;
      }
      if (this.#decoding.length === 0) return;
      const rate = this.#decodeRate();
      const used = Math.min(seconds, Math.min(...this.#decoding.map((j) => j.decode)) / rate);
      for (const job of this.#decoding) job.decode -= used * rate;
      seconds -= used;
      const finished = this.#decoding.filter((j) => j.decode <= EPSILON);
      this.#decoding = this.#decoding.filter((j) => j.decode > EPSILON);
      for (const job of finished) job.done();
    }
  }

  /** Wakes at the next finish of a prompt or a reply. */
  #schedule(): void {
    clearTimeout(this.#timer);
    const head = this.#prefilling[0];
    const seconds = head
      ? head.prefill / this.profile.promptTokensPerSecond
      : this.#decoding.length > 0
        ? Math.min(...this.#decoding.map((j) => j.decode)) / this.#decodeRate()
        : undefined;
    if (seconds === undefined) return;
    this.#timer = setTimeout(() => {
      this.#advance();
      this.#schedule();
    }, seconds * 1000);
  }
}

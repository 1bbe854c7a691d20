// Worker threads that decode byte ranges (range-worker.ts), one range at a time each; ranges wait
// in a queue for the next free thread. Node-only.
import type { Worker } from "node:worker_threads";
import type { DecodedRange } from "../range-decoder.js";
import type { RangeJob } from "./range-worker.js";
import { startRangeWorker } from "./range-worker-script.js";

export interface RangeReply {
  ordinal: number;
  /** Absent when the worker could not read the range (`error` says why). */
  range?: DecodedRange;
  error?: string;
}

interface Waiting {
  job: RangeJob;
  resolve: (reply: RangeReply) => void;
  reject: (error: unknown) => void;
}

export class RangeWorkerPool {
  readonly size: number;
  readonly #workers: Worker[] = [];
  readonly #idle: Worker[] = [];
  readonly #queue: Waiting[] = [];
  readonly #running = new Map<Worker, Waiting>();
  #failure: unknown;
  #closing = false;

  /** `start`: starts one thread (a real range worker by default; tests pass threads that fail). */
  constructor(size: number, start: () => Worker = startRangeWorker) {
    this.size = size;
    for (let index = 0; index < size; index++) {
      const worker = start();
      worker.on("message", (reply: RangeReply) => {
        const waiting = this.#running.get(worker);
        this.#running.delete(worker);
        this.#idle.push(worker);
        waiting?.resolve(reply);
        this.#next();
      });
      worker.on("error", (error) => this.#fail(error));
      // A thread that stops, busy or idle, would take its range (or the next one sent to it) with it
      // and leave the merge waiting for a reply that never comes: every waiting range fails at once,
      // and the merge reads the rest of the file itself.
      worker.on("exit", (code) => {
        if (!this.#closing) this.#fail(new Error(`a range worker stopped (exit code ${code})`));
      });
      this.#workers.push(worker);
      this.#idle.push(worker);
    }
  }

  /** Decodes one range on the next free thread. */
  decode(job: RangeJob): Promise<RangeReply> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise<RangeReply>((resolve, reject) => {
      this.#queue.push({ job, resolve, reject });
      this.#next();
    });
  }

  /** Stops every thread; ranges still queued or running fail, and so does any later `decode`. */
  async close(): Promise<void> {
    this.#closing = true;
    this.#fail(new Error("the range worker pool is closed"));
    await Promise.all(this.#workers.map((worker) => worker.terminate()));
  }

  #next(): void {
    while (this.#idle.length > 0 && this.#queue.length > 0) {
      const worker = this.#idle.pop() as Worker;
      const waiting = this.#queue.shift() as Waiting;
      this.#running.set(worker, waiting);
      worker.postMessage(waiting.job);
    }
  }

  #fail(error: unknown): void {
    this.#failure ??= error;
    for (const waiting of this.#running.values()) waiting.reject(error);
    for (const waiting of this.#queue) waiting.reject(error);
    this.#running.clear();
    this.#queue.length = 0;
  }
}

import { MonotonicClock } from "@cg/clock";
import type { CaptureClock } from "@cg/writer";

/**
 * The capture clock of an ONNX Runtime trace. ONNX Runtime reports its timings only after the run,
 * so the spans it timed are written afterwards at their own instants: `at(ns)` pins the reading
 * while they are written; otherwise the clock reads real monotonic time since the capture started.
 */
export class ReplayClock implements CaptureClock {
  readonly #base = new MonotonicClock();
  #pinned: number | undefined;

  now(): number {
    return this.#pinned ?? this.#base.now();
  }

  /** Real monotonic nanoseconds since the clock started, ignoring any pin. */
  realNow(): number {
    return this.#base.now();
  }

  at(ns: number): void {
    this.#pinned = ns;
  }

  release(): void {
    this.#pinned = undefined;
  }
}

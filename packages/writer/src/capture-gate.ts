import type { U64 } from "@cg/schema/core";
import { NOOP_SESSION } from "./noop-session.js";
import type { TraceRecorder } from "./trace-recorder.js";
import { WriterInputError } from "./writer-input-error.js";

/**
 * Opens a real session only for the selected one-based step; every other step gets the shared
 * no-op session. Typical loop:
 *
 * ```ts
 * const gate = new CaptureGate(run.capture_step, () => TraceSession.open(path, run));
 * for (let step = 1; step <= steps; step++) {
 *   const trace = gate.step(step);
 *   ...instrumented step using `trace`...
 *   if (gate.isCapturing) trace.finish();
 * }
 * ```
 */
export class CaptureGate<T extends TraceRecorder = TraceRecorder> {
  readonly captureStep: number;
  readonly #open: (step: number) => T;
  #session: T | undefined;
  #current = 0;

  constructor(captureStep: U64, open: (step: number) => T) {
    const step = typeof captureStep === "bigint" ? Number(captureStep) : captureStep;
    if (!Number.isSafeInteger(step) || step < 1) {
      throw new WriterInputError({
        message: `captureStep must be a one-based integer greater than zero, got ${String(captureStep)}`,
        field: "captureStep",
      });
    }
    if (typeof open !== "function") {
      throw new WriterInputError({ message: "open must be a function returning a session", field: "open" });
    }
    this.captureStep = step;
    this.#open = open;
  }

  /** The recorder for one-based `step`: the session (opened on first use) for the captured step, else the no-op. */
  step(step: number): T | TraceRecorder {
    this.#current = step;
    if (step !== this.captureStep) return NOOP_SESSION;
    this.#session ??= this.#open(step);
    return this.#session;
  }

  /** Advances to the next step (the first call is step 1) and returns its recorder. */
  begin(): T | TraceRecorder {
    return this.step(this.#current + 1);
  }

  /** The step most recently passed to `step`/`begin` (0 before the first). */
  get currentStep(): number {
    return this.#current;
  }

  /** True while the current step is the captured one. */
  get isCapturing(): boolean {
    return this.#current === this.captureStep;
  }

  /** The real session once the captured step has begun. */
  get session(): T | undefined {
    return this.#session;
  }
}

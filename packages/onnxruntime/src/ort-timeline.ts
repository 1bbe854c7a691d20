import { OrtProfileError } from "./ort-profile-error.js";
import type { OrtProfileRun } from "./ort-profile-run.js";

const MAX_NS = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Places ONNX Runtime's microseconds on the trace clock: trace ns = anchorNs + (µs − anchorUs) ×
 * 1000, in integers, so it is exact for every u64 µs (no double ever holds an absolute µs × 1000).
 * Every instant of the run is checked when the timeline is made, before a line is written: one
 * that falls before the trace clock's 0 or beyond what a span can hold (2^53 − 1 ns) is an
 * `invalid_event` naming the file, the line and the field.
 */
export class OrtTimeline {
  readonly #anchorUs: bigint;
  readonly #anchorNs: bigint;

  /** `anchorNs` is where `anchorUs` lies on the trace clock. */
  constructor(run: OrtProfileRun, anchorUs: bigint, anchorNs: bigint, file: string | undefined) {
    this.#anchorUs = anchorUs;
    this.#anchorNs = anchorNs;
    const events = [run.modelRun, ...(run.executor === undefined ? [] : [run.executor]), ...run.nodes];
    for (const event of [...events, ...run.outOfWindow]) {
      for (const [field, us] of [
        ["ts", event.startUs],
        ["dur", event.startUs + event.durationUs],
      ] as const) {
        const ns = this.#exact(us);
        if (ns < 0n || ns > MAX_NS) {
          const where = file ?? "the profile";
          throw new OrtProfileError({
            code: "invalid_event",
            file,
            line: event.line,
            field,
            message: `${where} line ${event.line}: field \`${field}\` puts the event ${field === "ts" ? "start" : "end"} at ${ns} ns on the trace clock (${us} µs; the run's model_run starts at ${run.modelRun.startUs} µs), outside 0..${MAX_NS} ns, which a trace span can hold`,
          });
        }
      }
    }
  }

  /** The earliest instant of the run: its `model_run` start or an earlier out-of-window node's. */
  static firstUs(run: OrtProfileRun): bigint {
    let first = run.modelRun.startUs;
    for (const node of run.outOfWindow) if (node.startUs < first) first = node.startUs;
    return first;
  }

  /** Trace nanoseconds of an instant of the run (checked at construction). */
  ns(us: bigint): number {
    return Number(this.#exact(us));
  }

  /** Nanoseconds of a duration of the run. */
  durationNs(us: bigint): number {
    return Number(us * 1000n);
  }

  #exact(us: bigint): bigint {
    return this.#anchorNs + (us - this.#anchorUs) * 1000n;
  }
}

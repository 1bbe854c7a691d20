import type { SpanContextStore } from "./span-context.js";
import type { SpanGuard } from "./span-guard.js";
import type { TraceWriteError } from "./trace-write-error.js";

/** A monotonic nanosecond source; the session reads it for every timestamp and duration. */
export interface CaptureClock {
  /** Integer nanoseconds, never decreasing. */
  now(): number;
}

/** Options shared by every way of opening a session. */
export interface TraceSessionOptions {
  /** Called once with the first write failure (the sticky error). Exceptions it throws are ignored. */
  onError?: ((error: TraceWriteError) => void) | undefined;
  /**
   * The capture clock. Default: a `MonotonicClock` started at the end of open (spec §13.2 step 6).
   * A custom clock's readings are used as-is as nanoseconds since capture start.
   */
  clock?: CaptureClock | undefined;
  /** `meta.run_id`; default `run-<pid>-<unix ns>`. */
  runId?: string | undefined;
  /** `meta.timestamp`; default the current UTC time. */
  timestamp?: string | undefined;
  /**
   * Reference behaviour for `recordOp`: a `timestampNs` of 0 means "now" (spec §17 Q10). Default
   * false: only an absent timestamp means now, so an op at time 0 can be recorded.
   */
  zeroOpTimestampMeansNow?: boolean | undefined;
  /** Where `span(...)` keeps its current span. Node sessions default to AsyncLocalStorage. */
  spanContext?: SpanContextStore<SpanGuard> | undefined;
}

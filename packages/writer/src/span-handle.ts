/** What a span guard offers: its id, its running time, and an end usable with `using`. */
export interface SpanHandle extends Disposable {
  /** The span id as written on the wire (`s2`, `s3`, ...). */
  readonly id: string;
  /** Whether the span has been ended. */
  readonly ended: boolean;
  /** Nanoseconds since the span's own start instant. */
  elapsedNs(): number;
  /**
   * Writes the span's `span_end`. Ending a span twice throws a TraceSessionError
   * (`span_already_ended`). Spans may end in any order; each end is written.
   */
  end(): void;
  /** Ends the span unless it was already ended explicitly (so `using` plus `end()` is fine). */
  [Symbol.dispose](): void;
}

/** A span given to a record method: its guard, or its id string (e.g. `"s2"`). */
export type SpanRef = SpanHandle | string;

// The two declarations these types need for `using`, for projects compiled without Node types or
// `lib: esnext.disposable` (browsers, edge runtimes, `lib: ["ES2022", "DOM"]`). They are the ones
// TypeScript's lib and @types/node make, so they merge with those where present.
declare global {
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
  interface Disposable {
    [Symbol.dispose](): void;
  }
}

import { MemorySink, type ProfileRun, TraceSession } from "@cg/writer";
import type { ReplayClock } from "./replay-clock.js";

/** A trace handed to `write` line by line, or written to `out`, or kept in memory when there is neither. */
export function openTrace(
  out: string | undefined,
  run: ProfileRun,
  clock: ReplayClock,
  write?: ((text: string) => void) | undefined,
): TraceSession {
  if (write !== undefined) {
    return TraceSession.withSink(
      run,
      { location: "output", append: write, flush() {}, close() {} },
      { clock },
    );
  }
  return out === undefined ? TraceSession.inMemory(run, { clock }) : TraceSession.open(out, run, { clock });
}

/** Finishes the trace: its path when written to a file, its text when kept in memory. */
export function finishTrace(trace: TraceSession): {
  tracePath: string | undefined;
  traceText: string | undefined;
} {
  const location = trace.finish();
  if (trace.sink instanceof MemorySink) return { tracePath: undefined, traceText: trace.sink.text() };
  return { tracePath: location === "output" ? undefined : location, traceText: undefined };
}

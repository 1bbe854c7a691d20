import { type MemorySink, type ProfileRun, TraceSession } from "@cg/writer";
import type { ReplayClock } from "./replay-clock.js";

/** A trace written to `out`, or kept in memory when there is none. */
export function openTrace(out: string | undefined, run: ProfileRun, clock: ReplayClock): TraceSession {
  return out === undefined ? TraceSession.inMemory(run, { clock }) : TraceSession.open(out, run, { clock });
}

/** Finishes the trace: its path when written to a file, its text when kept in memory. */
export function finishTrace(
  trace: TraceSession,
  out: string | undefined,
): { tracePath: string | undefined; traceText: string | undefined } {
  const finished = trace.finish();
  return out === undefined
    ? { tracePath: undefined, traceText: (trace.sink as MemorySink).text() }
    : { tracePath: finished, traceText: undefined };
}

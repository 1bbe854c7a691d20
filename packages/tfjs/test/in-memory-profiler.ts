// A profiler that captures into an in-memory session, for tests: its trace is read back as text or
// as a parsed document. A capture error fails the test instead of being reported and skipped.
import { parseTraceText, type TraceDocument } from "@cg/parser";
import { type MemorySink, TraceSession } from "@cg/writer";
import { TfjsProfiler } from "../src/tfjs-profiler.js";

export function inMemoryProfiler(mode: "training" | "inference", captureStep: number) {
  let session: TraceSession<MemorySink> | undefined;
  const profiler = TfjsProfiler[mode]({
    captureStep,
    openSession: (run) => {
      session = TraceSession.inMemory(run);
      return session;
    },
    onError: (error) => {
      throw error;
    },
  });
  const text = (): string => session?.sink.text() ?? "";
  return { profiler, text, document: (): TraceDocument => parseTraceText(text()) };
}

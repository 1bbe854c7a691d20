/**
 * Where serialized lines go. The session calls `append` with one LF-terminated line at a time and
 * treats any exception from a sink as a write failure (it becomes the session's sticky error).
 */
export interface TraceSink {
  /** A file path, or a description such as `memory`; named in error messages and returned by `finish`. */
  readonly location: string;
  append(line: string): void;
  /** Writes out anything buffered. */
  flush(): void;
  /** Flushes and releases the sink. Called once, by `finish`. */
  close(): void;
}

import type { LineTarget } from "./serialize/line-target.js";

/**
 * @internal A sink whose lines can be encoded straight into its byte buffer (the session's fast
 * path for op and span lines). The session writes one line at `lineOffset`, at most up to the end
 * of `lineBuffer()`, and then calls `commitLine(end)`; bytes written but not committed are ignored.
 */
export interface LineBufferSink {
  /** The buffer for the next line, or undefined when lines must go through `append`. */
  lineBuffer(): LineTarget | undefined;
  readonly lineOffset: number;
  commitLine(end: number): void;
}

/** @internal */
export function asLineBufferSink(sink: TraceSink): LineBufferSink | undefined {
  const candidate = sink as Partial<LineBufferSink>;
  return typeof candidate.lineBuffer === "function" && typeof candidate.commitLine === "function"
    ? (candidate as LineBufferSink)
    : undefined;
}

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

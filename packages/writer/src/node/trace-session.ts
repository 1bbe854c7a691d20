import { MemorySink } from "../memory-sink.js";
import type { ProfileRunFields } from "../profile-run.js";
import type { SpanGuard } from "../span-guard.js";
import { TraceSessionCore, type TraceSessionOptions } from "../trace-session-core.js";
import type { TraceSink } from "../trace-sink.js";
import { validateRun } from "../validate-run.js";
import { createAsyncSpanContext } from "./async-span-context.js";
import { type Durability, FileSink } from "./file-sink.js";

/** Options of `TraceSession.open`. */
export interface OpenTraceSessionOptions extends TraceSessionOptions {
  /** `buffered` (default) or `line` (write-through per event, survives a kill). */
  durability?: Durability | undefined;
  /** Buffered mode: buffer size in bytes (default 64 KiB). */
  bufferSize?: number | undefined;
}

function withAsyncContext<T extends TraceSessionOptions>(options: T | undefined): T {
  const resolved = { ...options } as T;
  resolved.spanContext ??= createAsyncSpanContext<SpanGuard>();
  return resolved;
}

/**
 * A capture written to a `candle-graph/trace/6` file (Node). `span(...)` follows `await` through
 * AsyncLocalStorage; buffered lines are flushed best-effort when the process exits.
 */
export class TraceSession<S extends TraceSink = TraceSink> extends TraceSessionCore<S> {
  /**
   * Opens `path` (creating parent directories, truncating the file), writes `meta` and the root span.
   * @throws TraceSessionError (`invalid_run`) before touching the file, e.g. for `capture_step` 0;
   *   TraceWriteError when the file cannot be created or written (a directory, a parent that is a file).
   */
  static open(
    path: string,
    run: ProfileRunFields,
    options?: OpenTraceSessionOptions,
  ): TraceSession<FileSink> {
    validateRun(run);
    if (typeof path !== "string" || path.length === 0) {
      throw new TypeError(`path must be a non-empty string, got ${String(path)}`);
    }
    const sink = new FileSink(path, { durability: options?.durability, bufferSize: options?.bufferSize });
    try {
      return new TraceSession(run, sink, withAsyncContext(options));
    } catch (error) {
      try {
        sink.close();
      } catch {
        // The open error is the one to report.
      }
      throw error;
    }
  }

  /** A session kept in memory; read it with `session.sink.text()` / `.lines()`. */
  static override inMemory(run: ProfileRunFields, options?: TraceSessionOptions): TraceSession<MemorySink> {
    return new TraceSession(run, new MemorySink(), withAsyncContext(options));
  }

  /** A session writing to any sink. */
  static withSink<T extends TraceSink>(
    run: ProfileRunFields,
    sink: T,
    options?: TraceSessionOptions,
  ): TraceSession<T> {
    return new TraceSession(run, sink, withAsyncContext(options));
  }
}

import type { DeviceMemorySink, ExecutionStep, GradientState, SpanKind } from "@cg/schema/core";
import type { MemoryRecord, OpRecord, TensorRecord } from "./record-inputs.js";
import type { SpanHandle, SpanRef } from "./span-handle.js";

/** Options of `span(name, fn, options)`. */
export interface SpanOptions {
  /** Span classification; default `function`. */
  kind?: SpanKind | undefined;
  /** Execution step of a step span. */
  step?: ExecutionStep | undefined;
  /** Marks the single measured region (as `beginMeasurement`). */
  measured?: boolean | undefined;
}

/**
 * The recording interface shared by a real `TraceSession` and the no-op session a closed
 * `CaptureGate` hands out, so instrumented code does not care which one it has. As a
 * `DeviceMemorySink`, it takes `@cg/cuda-probe`'s readings (`recordDeviceMemory`).
 */
export interface TraceRecorder extends DeviceMemorySink {
  /** False for the no-op session. */
  readonly isRecording: boolean;
  beginSpan(name: string, kind?: SpanKind): SpanHandle;
  beginMeasurement(name: string): SpanHandle;
  beginStepSpan(name: string, step: ExecutionStep, kind?: SpanKind): SpanHandle;
  /** Runs `fn` (sync or async) inside a new span, ending it when `fn` returns, resolves or throws. */
  span<R>(name: string, fn: (span: SpanHandle) => R, options?: SpanOptions): R;
  /** Ends a span of this session (the same as `span.end()`). */
  endSpan(span: SpanHandle): void;
  /** Id of the span new work is attributed to here (the root `s1` outside every span). */
  currentSpanId(): string;
  recordOp(span: SpanRef, record: OpRecord): void;
  recordTensor(span: SpanRef, record: TensorRecord): void;
  recordMemoryAlloc(span: SpanRef, record: MemoryRecord): void;
  recordMemoryFree(span: SpanRef, record: MemoryRecord): void;
  recordGradient(root: string, key: string, state: GradientState, norm?: number): void;
  /** Nanoseconds since the capture clock started. */
  elapsedNs(): number;
  flush(): void;
  /** Writes the root `span_end`, flushes, closes, and returns where the trace went. */
  finish(): string;
}

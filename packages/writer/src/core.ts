// `@cg/writer/core`: the session without any Node module (browsers, workers, edge runtimes). It
// writes to any `TraceSink` (a `MemorySink`, or your own); `span(...)` follows the synchronous part
// of its callback. The root entry adds the Node file sink, exit flush and AsyncLocalStorage context.
export { CaptureGate } from "./capture-gate.js";
export { MemorySink } from "./memory-sink.js";
export { NOOP_SESSION, NOOP_SPAN } from "./noop-session.js";
export { ProfileRun, type ProfileRunFields } from "./profile-run.js";
export type { MemoryRecord, OpRecord, TensorRecord } from "./record-inputs.js";
export { createSyncSpanContext, type SpanContextStore } from "./span-context.js";
export { SpanGuard } from "./span-guard.js";
export type { SpanHandle, SpanRef } from "./span-handle.js";
export type { SpanOptions, TraceRecorder } from "./trace-recorder.js";
export { type CaptureClock, TraceSessionCore, type TraceSessionOptions } from "./trace-session-core.js";
export { TraceSessionError, type TraceSessionErrorCode } from "./trace-session-error.js";
export type { TraceSink } from "./trace-sink.js";
export { TraceWriteError, type TraceWriteErrorOptions } from "./trace-write-error.js";
export { WriterInputError, type WriterInputErrorOptions } from "./writer-input-error.js";

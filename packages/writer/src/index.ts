export * from "./core.js";
export { createAsyncSpanContext } from "./node/async-span-context.js";
export { type Durability, FileSink, type FileSinkOptions } from "./node/file-sink.js";
export { type OpenTraceSessionOptions, TraceSession } from "./node/trace-session.js";

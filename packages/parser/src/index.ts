export { DEFAULT_MAX_LINE_LENGTH, type ReadOptions } from "./line-processor.js";
export { parseTrace, parseTraceText } from "./parse-trace.js";
export { readTraceEvents, type TraceEventRecord } from "./read-trace-events.js";
export type { ResolvedOpEvent, ResolvedTensorEvent, SpanRecord, TraceDocument } from "./trace-document.js";
export type { TraceParseErrorCode, TraceParseErrorOptions, TraceParseStage } from "./trace-parse-error.js";
export { TraceParseError } from "./trace-parse-error.js";
export type { ChunkIterable, TraceSource } from "./trace-source.js";

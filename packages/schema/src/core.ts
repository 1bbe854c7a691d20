// `@cg/schema/core`: the wire contract without its zod schemas — layouts, enums, types, the line
// and column decoders, encoders and u64 arithmetic. It loads no zod: zod's module graph takes about
// a tenth of a second to load, which every command and cold read would pay for schemas they never
// call. The root entry is this plus the zod schemas (event, enum and u64 schemas, zodSchemaOf).
export {
  type CanonicalColumnReader,
  canonicalColumnReader,
  compileCanonicalColumnReader,
} from "./canonical-column-reader.js";
export {
  brandCheck,
  CgError,
  type CgErrorDetails,
  type CgErrorOptions,
  type CgErrorWithDetailsClass,
  cgErrorWithDetails,
} from "./cg-error.js";
export { compareCodePoints } from "./code-point-order.js";
export { ColumnBatch, type ColumnBatchMessage } from "./column-batch.js";
export { type CanonicalLine, decodeCanonicalLine, readCanonicalLine } from "./decode-canonical-bytes.js";
export { type DecodeTraceLineOptions, decodeTraceLine } from "./decode-trace-line.js";
export {
  type ColumnLineReader,
  compileDecodedColumnReader,
  decodedColumnReader,
  RUN_CHECK,
  RUN_READ,
  RUN_STOP,
  type RunCheck,
} from "./decoded-column-reader.js";
export type { DeviceMemorySink } from "./device-memory-sink.js";
export {
  encodeDeviceMemoryEvent,
  encodeEdgeEvent,
  encodeGradientEvent,
  encodeMemoryEvent,
  encodeMetaEvent,
  encodeOpEvent,
  encodeSpanEndEvent,
  encodeSpanStartEvent,
  encodeTags,
  encodeTensorEvent,
  encodeTraceEvent,
  encodeWithLayout,
} from "./encode-events.js";
export { formatCanonicalFloat } from "./encode-float.js";
export { encodeJsonString } from "./encode-string.js";
export {
  EVENT_LAYOUTS,
  type EventLayout,
  type EventLayouts,
  type EventLayoutTable,
  type FieldLayout,
  type Presence,
  type WireType,
} from "./event-layouts.js";
export type {
  DeviceMemoryEvent,
  DeviceMemoryEventInput,
  EdgeEvent,
  EdgeEventInput,
  EventOfKind,
  GradientEvent,
  GradientEventInput,
  MemoryEvent,
  MemoryEventInput,
  MetaEvent,
  MetaEventInput,
  OpEvent,
  OpEventInput,
  RunMetadata,
  SpanEndEvent,
  SpanEndEventInput,
  SpanStartEvent,
  SpanStartEventInput,
  TensorEvent,
  TensorEventInput,
  TraceEvent,
  TraceEventInput,
} from "./events.js";
export {
  ABSENT_ENUM,
  ABSENT_ID,
  ABSENT_U64,
  EXACT_U64,
  type FieldColumn,
  KindColumns,
} from "./kind-columns.js";
export {
  type DecodeLineResult,
  LINE_ERROR_CODES,
  type LineDecodeError,
  type LineErrorCode,
} from "./line-decode-error.js";
export { SCHEMA, type SchemaVersion } from "./schema-version.js";
export { hashString } from "./string-hash.js";
export { isTraceWhiteSpace, trimTraceLine } from "./trim-trace-line.js";
export * from "./u64.js";
export * from "./wire-enums.js";
export type { EventOfLayout, EventSchemaOf } from "./zod-from-layout.js";

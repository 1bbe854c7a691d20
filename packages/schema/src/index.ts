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
/**
 * @deprecated The code-generation kit lives at `@cg/schema/codegen` (internal plumbing, not the
 * trace contract). These root re-exports keep 1.x importers working and go in the next major.
 */
export { generatedFunction, type SourceCompiler, SourceConstants, sourceString } from "./codegen.js";
export { ColumnBatch, type ColumnBatchMessage } from "./column-batch.js";
export { type CanonicalLine, decodeCanonicalLine, readCanonicalLine } from "./decode-canonical-bytes.js";
export { type DecodeTraceLineOptions, decodeTraceLine } from "./decode-trace-line.js";
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
export * from "./enums.js";
export {
  EVENT_LAYOUTS,
  type EventLayout,
  type EventLayouts,
  type EventLayoutTable,
  type FieldLayout,
  type Presence,
  type WireType,
} from "./event-layouts.js";
export * from "./events.js";
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
export { isTraceWhiteSpace, trimTraceLine } from "./trim-trace-line.js";
export * from "./u64.js";
export { type EventOfLayout, type EventSchemaOf, zodSchemaOf } from "./zod-from-layout.js";

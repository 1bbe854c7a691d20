import { brandCheck, type CgErrorOptions, cgErrorWithDetails, type LineErrorCode } from "@cg/schema/core";

/**
 * Stable codes of reader failures. Line-stage codes come from `decodeTraceLine` of @cg/schema
 * (spec §8.2); the rest are framing, structural (spec §8.3) and recovery codes.
 */
export type TraceParseErrorCode =
  | LineErrorCode
  | "invalid_utf8"
  | "line_too_long"
  | "truncated"
  | "meta_not_first"
  | "missing_meta"
  | "unsupported_schema"
  | "duplicate_span_start"
  | "unknown_span_end"
  | "duplicate_span_end"
  | "read_failed"
  | (string & {});

/** Processing stage of the failure, as in the fixture manifest: a single line, or the event stream. */
export type TraceParseStage = "line" | "stream";

export interface TraceParseErrorOptions extends CgErrorOptions {
  code: TraceParseErrorCode;
  stage: TraceParseStage;
  /** 1-based physical line (blank lines count); `undefined` when no line causes it (missing meta). */
  line?: number | undefined;
  /** 0-based index among non-blank lines; `undefined` where the reference gives none. */
  index?: number | undefined;
  /** The source's file path or label, when known. */
  file?: string | undefined;
  /** Dotted path of the offending field for schema failures, e.g. `shape[1]`. */
  field?: string | undefined;
}

/** A trace file (or one of its lines) that cannot be read as `candle-graph/trace/6`. */
export class TraceParseError extends cgErrorWithDetails<TraceParseErrorOptions>() {
  override readonly name = "TraceParseError";
  static override isInstance = brandCheck<TraceParseError>("TraceParseError");
}

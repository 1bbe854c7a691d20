import type { TraceEvent } from "./events.js";

/** Stable machine-readable codes of a line that does not decode (spec §8.2). */
export const LINE_ERROR_CODES = [
  "invalid_json",
  "number_out_of_range",
  "missing_field",
  "duplicate_field",
  "unknown_variant",
  "expected_u64",
  "expected_usize",
  "invalid_type",
] as const;
export type LineErrorCode = (typeof LINE_ERROR_CODES)[number];

/**
 * Why one line failed to decode. `message` contains the cause phrase of spec §8.2 (for example
 * "missing field `key`" or "expected u64") and names the field, e.g. `op.duration_ns`.
 */
export interface LineDecodeError {
  code: LineErrorCode;
  message: string;
  /** The offending field as `<kind>.<key>`, `<kind>.<key>[<index>]` or `meta.tags.<tag>`, when there is one. */
  field?: string;
}

export type DecodeLineResult = { ok: true; event: TraceEvent } | { ok: false; error: LineDecodeError };

/** Thrown inside the decoder only; `decodeTraceLine` turns it into a result. */
export class LineFailure {
  readonly code: LineErrorCode;
  readonly message: string;
  readonly field: string | undefined;

  constructor(code: LineErrorCode, cause: string, field?: string) {
    this.code = code;
    this.message = field === undefined ? cause : `${cause} at \`${field}\``;
    this.field = field;
  }

  toError(): LineDecodeError {
    return this.field === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, field: this.field };
  }
}

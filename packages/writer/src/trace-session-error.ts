import { brandCheck, type CgErrorOptions, cgErrorWithDetails } from "@cg/schema/core";

/** Why a session call was refused. */
export type TraceSessionErrorCode =
  | "invalid_run"
  | "span_already_ended"
  | "foreign_span"
  | "spans_still_open"
  | "session_finished"
  | "path_in_use";

export interface TraceSessionErrorOptions extends CgErrorOptions {
  code: TraceSessionErrorCode;
}

/** Misuse of a session: invalid provenance, a span ended twice or by the wrong session, finish with open spans, a
 * path another live session is writing. */
export class TraceSessionError extends cgErrorWithDetails<TraceSessionErrorOptions>() {
  override readonly name = "TraceSessionError";
  static override isInstance = brandCheck<TraceSessionError>("TraceSessionError");
}

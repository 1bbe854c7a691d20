import { brandCheck, CgError, type CgErrorOptions } from "@cg/schema/core";

export type OrtProfileErrorCode =
  | "not_ort_profile"
  | "truncated"
  | "invalid_event"
  | "run_not_found"
  | "profile_missing"
  | "invalid_option";

export interface OrtProfileErrorOptions extends CgErrorOptions {
  code: OrtProfileErrorCode;
  /** The profile file, when the error is about one. */
  file?: string | undefined;
  /** One-based line of the profile file. */
  line?: number | undefined;
  /** The event field at fault. */
  field?: string | undefined;
}

/** A file that is not a usable ONNX Runtime profile, or a capture that could not find its profile. */
export class OrtProfileError extends CgError {
  override readonly name = "OrtProfileError";
  static override isInstance = brandCheck<OrtProfileError>("OrtProfileError");
  readonly code: OrtProfileErrorCode;
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly field: string | undefined;

  constructor({ code, file, line, field, ...options }: OrtProfileErrorOptions) {
    super(options);
    this.code = code;
    this.file = file;
    this.line = line;
    this.field = field;
  }
}

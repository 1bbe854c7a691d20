import { brandCheck, CgError, type CgErrorOptions } from "@cg/schema/core";

export type TfjsProfilerErrorCode = "capture_active" | "capture_not_active" | "invalid_option";

export interface TfjsProfilerErrorOptions extends CgErrorOptions {
  code: TfjsProfilerErrorCode;
}

/** Misuse of the tfjs adapter (overlapping captures, bad options). Never raised from inside a kernel. */
export class TfjsProfilerError extends CgError {
  override readonly name = "TfjsProfilerError";
  static override isInstance = brandCheck<TfjsProfilerError>("TfjsProfilerError");
  readonly code: TfjsProfilerErrorCode;

  constructor({ code, ...options }: TfjsProfilerErrorOptions) {
    super(options);
    this.code = code;
  }
}

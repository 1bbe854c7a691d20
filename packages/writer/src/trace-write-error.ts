import { brandCheck, type CgErrorOptions, cgErrorWithDetails } from "@cg/schema/core";

export interface TraceWriteErrorOptions extends CgErrorOptions {
  /** Where the trace was being written: a file path, or a sink's description. */
  target: string;
  /** The system error code when there is one (`ENOSPC`, `EISDIR`, `ENOTDIR`, ...). */
  systemCode?: string | undefined;
}

/** The trace could not be created or written. The first write failure of a session is sticky. */
export class TraceWriteError extends cgErrorWithDetails<TraceWriteErrorOptions>() {
  override readonly name = "TraceWriteError";
  static override isInstance = brandCheck<TraceWriteError>("TraceWriteError");

  /** Wraps a thrown system error, naming the target and the system message. */
  static fromCause(action: string, target: string, cause: unknown): TraceWriteError {
    const systemCode =
      typeof cause === "object" && cause !== null && typeof (cause as { code?: unknown }).code === "string"
        ? (cause as { code: string }).code
        : undefined;
    const detail = cause instanceof Error ? cause.message : String(cause);
    return new TraceWriteError({
      message: `${action} ${target} failed: ${detail}`,
      cause,
      target,
      systemCode,
    });
  }
}

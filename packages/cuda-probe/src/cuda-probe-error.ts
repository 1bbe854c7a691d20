import { brandCheck, type CgErrorOptions, cgErrorWithDetails } from "@cg/schema/core";
import type { LibraryAttempt } from "./nvml-library.js";
import type { NvmlFailure } from "./nvml-session.js";

/** Why the probe cannot read NVIDIA device memory (or can no longer). */
export type CudaProbeReason =
  | "library-not-found"
  | "symbol-missing"
  | "driver-not-loaded"
  | "no-device"
  | "permission-denied"
  | "nvml-error"
  | "closed";

export interface CudaProbeErrorOptions extends CgErrorOptions {
  reason: CudaProbeReason;
  /** NVML return code, where NVML reported the failure. */
  nvmlCode?: number;
  /** NVML's own text for the code (nvmlErrorString). */
  nvmlMessage?: string;
  /** The NVML function that failed. */
  nvmlFunction?: string;
  /** The missing symbol, for `symbol-missing`. */
  symbol?: string;
  /** The library that was loaded, where one was. */
  libraryPath?: string;
  /** Each library name tried, for `library-not-found`. */
  attempts?: readonly LibraryAttempt[];
}

/** A probe failure with a tagged `reason`. */
export class CudaProbeError extends cgErrorWithDetails<CudaProbeErrorOptions>() {
  override readonly name = "CudaProbeError";
  static override isInstance = brandCheck<CudaProbeError>("CudaProbeError");
  /** Empty unless the reason is `library-not-found`. */
  declare readonly attempts: readonly LibraryAttempt[];

  constructor(options: CudaProbeErrorOptions) {
    super({ ...options, attempts: options.attempts ?? [] });
  }

  /** Builds the error for a failure reported by the NVML layer. */
  static fromFailure(failure: NvmlFailure): CudaProbeError {
    switch (failure.reason) {
      case "library-not-found": {
        const tried = failure.attempts.map((attempt) => `${attempt.path} (${attempt.message})`).join("; ");
        return new CudaProbeError({
          reason: failure.reason,
          message: `NVML library not found; tried ${tried || "nothing"}. Install the NVIDIA driver or set CG_NVML_LIBRARY.`,
          attempts: failure.attempts,
        });
      }
      case "symbol-missing":
        return new CudaProbeError({
          reason: failure.reason,
          message: `${failure.libraryPath} does not export ${failure.symbol}; the NVIDIA driver is too old or the file is not NVML`,
          symbol: failure.symbol,
          libraryPath: failure.libraryPath,
        });
      case "no-device":
        return new CudaProbeError({
          reason: failure.reason,
          message: "NVML reports no NVIDIA device",
          libraryPath: failure.libraryPath,
        });
      case "closed":
        return new CudaProbeError({ reason: "closed", message: "the CUDA probe is closed" });
      default:
        return new CudaProbeError({
          reason: failure.reason,
          message: `${failure.nvmlFunction} failed: ${failure.nvmlMessage} (NVML code ${failure.code})`,
          nvmlCode: failure.code,
          nvmlMessage: failure.nvmlMessage,
          nvmlFunction: failure.nvmlFunction,
          libraryPath: failure.libraryPath,
        });
    }
  }
}

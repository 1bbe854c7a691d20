import { brandCheck, type CgErrorOptions, cgErrorWithDetails } from "@cg/schema/core";

export interface MemoryInputErrorOptions extends CgErrorOptions {
  /** Where the bad value was found, e.g. `shape[2]` or `memory[17].bytes`. */
  path: string;
}

/** A value handed to `@cg/memory` is not a valid wire value (e.g. a negative or fractional dimension). */
export class MemoryInputError extends cgErrorWithDetails<MemoryInputErrorOptions>() {
  override readonly name = "MemoryInputError";
  static override isInstance = brandCheck<MemoryInputError>("MemoryInputError");
}

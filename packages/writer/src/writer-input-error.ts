import { brandCheck, type CgErrorOptions, cgErrorWithDetails } from "@cg/schema/core";

export interface WriterInputErrorOptions extends CgErrorOptions {
  /** The offending input field, camelCase as passed (e.g. `durationNs`, `shape[1]`, `tags.batch`). */
  field: string;
}

/** A value passed to a writer call is not valid for the wire; nothing was written. */
export class WriterInputError extends cgErrorWithDetails<WriterInputErrorOptions>() {
  override readonly name = "WriterInputError";
  static override isInstance = brandCheck<WriterInputError>("WriterInputError");
}

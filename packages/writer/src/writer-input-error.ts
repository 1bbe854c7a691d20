import { brandCheck, CgError, type CgErrorOptions } from "@cg/schema";

export interface WriterInputErrorOptions extends CgErrorOptions {
  /** The offending input field, camelCase as passed (e.g. `durationNs`, `shape[1]`, `tags.batch`). */
  field: string;
}

/** A value passed to a writer call is not valid for the wire; nothing was written. */
export class WriterInputError extends CgError {
  override readonly name = "WriterInputError";
  readonly field: string;

  constructor({ message, cause, field }: WriterInputErrorOptions) {
    super({ message, cause });
    this.field = field;
  }

  static override isInstance = brandCheck<WriterInputError>("WriterInputError");
}

import { brandCheck, CgError, type CgErrorOptions } from "@cg/schema/core";
import { ExitCode } from "./exit-codes.js";

export interface CliErrorOptions extends CgErrorOptions {
  /** Process exit status the error maps to. */
  exitCode?: ExitCode;
}

/**
 * A failure the user can act on: bad arguments, an unreadable file, a trace that does not parse.
 * The message is printed as is (no stack), prefixed with `cg-trace:`.
 */
export class CliError extends CgError {
  override readonly name: string = "CliError";
  readonly exitCode: ExitCode;

  constructor({ exitCode = ExitCode.Failure, ...options }: CliErrorOptions) {
    super(options);
    this.exitCode = exitCode;
  }

  static override isInstance = brandCheck<CliError>("CliError");
}

/** Wrong command line: unknown option, missing argument, bad value. Exit status 2. */
export class UsageError extends CliError {
  override readonly name: string = "UsageError";

  constructor(options: CgErrorOptions) {
    super({ ...options, exitCode: ExitCode.Usage });
  }

  static override isInstance = brandCheck<UsageError>("UsageError");
}

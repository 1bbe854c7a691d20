import { brandCheck, CgError } from "@cg/schema";

export type SqlErrorCode =
  | "no_traces"
  | "not_found"
  | "invalid_trace"
  | "duplicate_run"
  | "query_failed"
  | "dataset_layout"
  | "export_failed";

export interface SqlErrorOptions {
  message: string;
  code: SqlErrorCode;
  file?: string;
  cause?: unknown;
}

/** Something `@cg/sql` could not do: a missing input, a rejected trace in strict mode, a bad query. */
export class SqlError extends CgError {
  override readonly name = "SqlError";
  readonly code: SqlErrorCode;
  readonly file: string | undefined;

  constructor({ message, code, file, cause }: SqlErrorOptions) {
    super(cause === undefined ? { message } : { message, cause });
    this.code = code;
    this.file = file;
  }

  static override isInstance = brandCheck<SqlError>("SqlError");
}

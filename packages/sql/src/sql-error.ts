import { brandCheck, type CgErrorOptions, cgErrorWithDetails } from "@cg/schema/core";

export type SqlErrorCode =
  | "no_traces"
  | "not_found"
  | "invalid_trace"
  | "duplicate_run"
  | "query_failed"
  | "query_refused"
  | "unreadable_input"
  | "duckdb_failed"
  | "dataset_layout"
  | "export_failed";

export interface SqlErrorOptions extends CgErrorOptions {
  code: SqlErrorCode;
  /** The input the failure is about, when there is one. */
  file?: string;
}

/** Something `@cg/sql` could not do: a missing input, a rejected trace in strict mode, a bad query. */
export class SqlError extends cgErrorWithDetails<SqlErrorOptions>() {
  override readonly name = "SqlError";
  static override isInstance = brandCheck<SqlError>("SqlError");
}

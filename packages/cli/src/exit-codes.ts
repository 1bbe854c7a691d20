/**
 * Exit statuses of `cg-trace`. `validate` uses all three; other commands use 0 on success,
 * 1 when the command ran but reports a failed check, 2 for usage or input errors.
 */
export const ExitCode = {
  /** Success; for `validate`, the trace is valid and trusted. */
  Ok: 0,
  /** The command ran, but the result is a failure (for `validate`: valid but untrusted). */
  Failure: 1,
  /** Usage error, unreadable input or a trace that does not parse. */
  Usage: 2,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

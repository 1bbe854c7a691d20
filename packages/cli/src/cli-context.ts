/** Where a command writes and what it knows about the terminal; tests pass their own. */
export interface CliContext {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /**
   * The descriptor behind stdout, for outputs written with `-o -` (large ones are written to it
   * directly, in blocks, instead of through `stdout`); undefined in tests, which capture `stdout`.
   */
  stdoutDescriptor?: number;
  /** Whether to use ANSI colours on stdout (off when NO_COLOR is set or stdout is not a TTY). */
  color: boolean;
  /** Whether stderr is an interactive terminal (progress is shown only then). */
  stderrIsTty: boolean;
  /** Columns of the terminal stdout is, or undefined when it is not one (tables are then not cut). */
  columns?: number;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  version: string;
  /** Milliseconds from an arbitrary origin, for progress rates (default `performance.now`). */
  now?: () => number;
}

/** Builds the context of a real process: NO_COLOR (any non-empty value) and FORCE_COLOR are honoured. */
export function processContext(version: string): CliContext {
  // A closed pipe (`cg-trace summary big.jsonl | head`) is a normal way to stop reading, not a crash.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
  const env = process.env;
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== "";
  const forceColor = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "" && env.FORCE_COLOR !== "0";
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdoutDescriptor: 1,
    color: !noColor && (forceColor || process.stdout.isTTY === true),
    stderrIsTty: process.stderr.isTTY === true,
    ...(process.stdout.isTTY === true && process.stdout.columns > 0
      ? { columns: process.stdout.columns }
      : {}),
    cwd: process.cwd(),
    env,
    version,
  };
}

import { type CliContext, runCli } from "../src/index.js";

/** Runs `cg-trace` in this process with captured output. */
export async function runInProcess(
  argv: string[],
  options: {
    cwd?: string;
    color?: boolean;
    env?: Record<string, string>;
    stderrIsTty?: boolean;
    now?: () => number;
  } = {},
) {
  let stdout = "";
  let stderr = "";
  const context: CliContext = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    color: options.color ?? false,
    stderrIsTty: options.stderrIsTty ?? false,
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? {},
    version: "0.0.0-test",
    ...(options.now === undefined ? {} : { now: options.now }),
  };
  const exitCode = await runCli(argv, context);
  return { exitCode, stdout, stderr };
}

import { CgError } from "@cg/trace";
import type { CliContext } from "./cli-context.js";
import { CliError, UsageError } from "./cli-error.js";
import type { Command } from "./command.js";
import { commands } from "./command-registry.js";
import { ExitCode } from "./exit-codes.js";
import { parseCommandArgs } from "./parse-command-args.js";

function mainHelp(version: string): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  const list = commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`).join("\n");
  return `cg-trace ${version}: check, summarise and explore candle-graph/trace/6 profiler traces

Usage: cg-trace <command> [options]

Commands:
${list}

Options:
  -h, --help     show help (also: cg-trace <command> --help)
  -v, --version  print the version

Exit codes: 0 success, 1 the command ran but a check failed (e.g. untrusted trace),
            2 usage error, unreadable file or a trace that does not parse.
Environment: NO_COLOR disables colours.
`;
}

function commandHelp(command: Command): string {
  return `Usage: cg-trace ${command.usage}\n\n${command.summary}\n\n${command.help.trimEnd()}\n`;
}

/** Runs `cg-trace` with the arguments after the program name and returns the exit status. */
export async function runCli(argv: string[], context: CliContext): Promise<ExitCode> {
  const [first, ...rest] = argv;
  if (first === undefined || first === "--help" || first === "-h" || first === "help") {
    const topic = first === "help" ? commands.find((command) => command.name === rest[0]) : undefined;
    context.stdout(topic === undefined ? mainHelp(context.version) : commandHelp(topic));
    return ExitCode.Ok;
  }
  if (first === "--version" || first === "-v") {
    context.stdout(`${context.version}\n`);
    return ExitCode.Ok;
  }
  const command = commands.find((candidate) => candidate.name === first);
  try {
    if (command === undefined) {
      const known = commands.map((candidate) => candidate.name).join(", ");
      throw new UsageError({
        message: `unknown command "${first}" (commands: ${known}); see cg-trace --help`,
      });
    }
    const args = parseCommandArgs(command, rest);
    if (args.values.help === true) {
      context.stdout(commandHelp(command));
      return ExitCode.Ok;
    }
    return await command.run(args, context);
  } catch (error) {
    return reportError(error, context);
  }
}

function reportError(error: unknown, context: CliContext): ExitCode {
  if (CliError.isInstance(error)) {
    context.stderr(`cg-trace: ${error.message}\n`);
    return error.exitCode;
  }
  if (CgError.isInstance(error)) {
    // Errors of the libraries (parse errors, bad input) are input problems, not crashes.
    context.stderr(`cg-trace: ${error.message}\n`);
    return ExitCode.Usage;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  context.stderr(`cg-trace: internal error: ${detail}\n`);
  return ExitCode.Failure;
}

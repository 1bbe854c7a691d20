import { CgError } from "@cg/schema/core";
import { CommanderError, Command as Program } from "commander";
import type { CliContext } from "./cli-context.js";
import { CliError } from "./cli-error.js";
import type { Command, CommandArguments } from "./command.js";
import { commands } from "./command-registry.js";
import { ExitCode } from "./exit-codes.js";
import { escapeControl } from "./format/escape-control.js";
import { setTableWidth } from "./format/table.js";
import { buildOption } from "./option-spec.js";

const MAIN_FOOTER = `
Exit codes: 0 success, 1 the command ran but a check failed (e.g. untrusted trace),
            2 usage error, unreadable file, unwritable output or a trace that does not parse.
Environment: NO_COLOR disables colours.`;

/** Commander errors that are not failures: help or version was asked for. */
const INFORMATIONAL = new Set(["commander.helpDisplayed", "commander.version", "commander.help"]);

function attachCommand(program: Program, command: Command, context: CliContext, outcome: { code: ExitCode }) {
  const sub = program.command(command.name).description(command.summary);
  for (const argument of command.arguments) {
    sub.argument(argument.optional ? `[${argument.name}]` : `<${argument.name}>`, argument.description);
  }
  const options = Object.entries(command.options).map(([name, spec]) => {
    const option = buildOption(name, spec);
    sub.addOption(option);
    return { name, option };
  });
  if (command.help.trim() !== "") sub.addHelpText("after", `\n${command.help.trimEnd()}`);
  sub.action(async () => {
    const parsed = sub.opts<Record<string, string | boolean | undefined>>();
    const values: CommandArguments["values"] = {};
    for (const { name, option } of options) {
      const value = parsed[option.attributeName()];
      // A negatable flag such as --no-gpu is stored by commander as gpu=false.
      values[name] = option.negate ? value === false : value;
    }
    const positionals = sub.args.filter((value): value is string => typeof value === "string");
    outcome.code = await command.run({ positionals, values }, context);
  });
}

/** The commander program of `cg-trace`; built fresh per run so tests can run many in one process. */
export function buildProgram(
  context: CliContext,
  outcome: { code: ExitCode } = { code: ExitCode.Ok },
): Program {
  const program = new Program("cg-trace")
    .description("check, summarise and explore candle-graph/trace/6 profiler traces")
    .version(context.version, "-v, --version", "print the version")
    .helpOption("-h, --help", "show help (also: cg-trace <command> --help)")
    .helpCommand("help [command]", "show the help of a command")
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => context.stdout(text),
      writeErr: (text) => context.stderr(text),
      // Errors are printed by runCli as one line; commander's own rendering is silenced.
      outputError: () => undefined,
    })
    .addHelpText("after", MAIN_FOOTER);
  for (const command of commands) attachCommand(program, command, context, outcome);
  return program;
}

/** Commander's "error: …\n(Did you mean …?)" as one line naming the command. */
function commanderMessage(error: CommanderError, commandName: string | undefined): string {
  const text = error.message
    .replace(/^error: /, "")
    .replace(/\n\(Did you mean /, " (did you mean ")
    .replace(/\s*\n\s*/g, " ")
    .trim()
    .replace(/\.$/, "");
  const helpHint = commandName === undefined ? "cg-trace --help" : `cg-trace ${commandName} --help`;
  return `${commandName === undefined ? "" : `${commandName}: `}${text}; see ${helpHint}`;
}

/** Runs `cg-trace` with the arguments after the program name and returns the exit status. */
export async function runCli(argv: string[], context: CliContext): Promise<ExitCode> {
  const outcome = { code: ExitCode.Ok as ExitCode };
  const program = buildProgram(context, outcome);
  setTableWidth(context.columns);
  if (argv.length === 0) {
    context.stdout(program.helpInformation());
    return ExitCode.Ok;
  }
  try {
    await program.parseAsync(argv, { from: "user" });
    return outcome.code;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (INFORMATIONAL.has(error.code)) return error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
      const commandName = commands.find((command) => command.name === argv[0])?.name;
      context.stderr(`cg-trace: ${escapeControl(commanderMessage(error, commandName))}\n`);
      return ExitCode.Usage;
    }
    return reportError(error, context);
  }
}

/** Prints an error as one `cg-trace: …` line and picks the exit status. */
export function reportError(error: unknown, context: CliContext): ExitCode {
  // Messages quote file names and trace content: escaped, so that each error stays one line.
  if (CliError.isInstance(error)) {
    context.stderr(`cg-trace: ${escapeControl(error.message)}\n`);
    return error.exitCode;
  }
  if (CgError.isInstance(error)) {
    // Errors of the libraries (parse errors, bad input) are input problems, not crashes.
    context.stderr(`cg-trace: ${escapeControl(error.message)}\n`);
    return ExitCode.Usage;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  context.stderr(`cg-trace: internal error: ${detail}\n`);
  return ExitCode.Failure;
}

import type { CliContext } from "./cli-context.js";
import type { ExitCode } from "./exit-codes.js";

/** One option of a command, e.g. `--limit N` or `-o, --output FILE`. */
export interface OptionSpec {
  type: "string" | "boolean";
  /** One-letter alias, e.g. "o" for `-o`. */
  short?: string;
  /** Placeholder of a string option's value in the help, e.g. "FILE" (default "VALUE"). */
  valueName?: string;
  /** One line (or a few) for the generated help. */
  description: string;
}

export type OptionSpecs = Record<string, OptionSpec>;

/** One positional argument, e.g. `<trace>`. */
export interface ArgumentSpec {
  name: string;
  description: string;
  /** Whether it can be left out (default: required). */
  optional?: boolean;
}

/** Parsed command line of one command: positionals in order, option values by option name. */
export interface CommandArguments {
  positionals: string[];
  values: Record<string, string | boolean | undefined>;
}

/**
 * One `cg-trace` command. Adding a command is one file in commands/ exporting this, plus one line
 * in command-registry.ts; parsing, help, suggestions and error reporting come from the framework.
 */
export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  arguments: ArgumentSpec[];
  options: OptionSpecs;
  /** Text printed after the generated usage and options: details, exit codes, examples. */
  help: string;
  run(args: CommandArguments, context: CliContext): Promise<ExitCode>;
}

import type { ParseArgsConfig } from "node:util";
import type { CliContext } from "./cli-context.js";
import type { ExitCode } from "./exit-codes.js";

export type OptionSpecs = NonNullable<ParseArgsConfig["options"]>;

/** Parsed command line of one command. */
export interface CommandArguments {
  positionals: string[];
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
}

/** One `cg-trace` command. Adding a command is one file exporting this plus one registry line. */
export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Usage line(s) after `cg-trace`, e.g. `summary <trace> [--json]`. */
  usage: string;
  /** Longer help text: options, exit codes, examples. */
  help: string;
  options: OptionSpecs;
  /** Allowed number of positional arguments, inclusive. */
  positionals: { min: number; max: number };
  run(args: CommandArguments, context: CliContext): Promise<ExitCode>;
}

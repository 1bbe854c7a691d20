import { parseArgs } from "node:util";
import { UsageError } from "./cli-error.js";
import type { Command, CommandArguments } from "./command.js";

/** Parses a command's arguments strictly; every problem becomes a UsageError naming the command. */
export function parseCommandArgs(command: Command, argv: string[]): CommandArguments {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...command.options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError({ message: `${command.name}: ${message}`, cause: error });
  }
  const { positionals, values } = parsed;
  if (values.help !== true) {
    const { min, max } = command.positionals;
    if (positionals.length < min) {
      throw new UsageError({
        message: `${command.name}: missing argument; usage: cg-trace ${command.usage}`,
      });
    }
    if (positionals.length > max) {
      throw new UsageError({
        message: `${command.name}: unexpected argument "${positionals[max]}"; usage: cg-trace ${command.usage}`,
      });
    }
  }
  return { positionals, values: values as CommandArguments["values"] };
}

/** A string option's value, or undefined. */
export function stringOption(args: CommandArguments, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === "string" ? value : undefined;
}

export function booleanOption(args: CommandArguments, name: string): boolean {
  return args.values[name] === true;
}

/** A positive integer option such as `--limit`; rejects `0`, `-1`, `1.5` and `abc`. */
export function positiveIntegerOption(
  args: CommandArguments,
  commandName: string,
  name: string,
  fallback: number,
): number {
  const text = stringOption(args, name);
  if (text === undefined) return fallback;
  if (!/^[1-9][0-9]*$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new UsageError({ message: `${commandName}: --${name} must be a positive integer, got "${text}"` });
  }
  return Number(text);
}

/** Picks one of a fixed list of values, with a usage error listing the choices. */
export function choiceOption<const T extends string>(
  args: CommandArguments,
  commandName: string,
  name: string,
  choices: readonly T[],
  fallback?: T,
): T {
  const text = stringOption(args, name);
  if (text === undefined) {
    if (fallback !== undefined) return fallback;
    throw new UsageError({ message: `${commandName}: --${name} is required (one of ${choices.join(", ")})` });
  }
  if (!(choices as readonly string[]).includes(text)) {
    throw new UsageError({
      message: `${commandName}: --${name} must be one of ${choices.join(", ")}, got "${text}"`,
    });
  }
  return text as T;
}

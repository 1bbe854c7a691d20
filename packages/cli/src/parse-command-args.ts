import { UsageError } from "./cli-error.js";
import type { CommandArguments } from "./command.js";

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

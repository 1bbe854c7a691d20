import type { ArgumentSpec, OptionSpec } from "./command.js";

// Arguments and options that several commands declare alike: their wording is written once here.

/** `<trace>`: the one trace file a command reads. */
export const traceArgument: ArgumentSpec = { name: "trace", description: "the trace file (.jsonl)" };

/** `-o, --output FILE`, written through `writeOutput` (so a regular file is replaced atomically). */
export function outputFileOption(what: string): OptionSpec {
  return {
    type: "string",
    short: "o",
    valueName: "FILE",
    description: `where to write ${what} (required); a regular file is replaced atomically, - is stdout`,
  };
}

/** `--json`: `what` is the document written; every command writes u64 values the same way. */
export function jsonOption(what: string): OptionSpec {
  return {
    type: "boolean",
    description: `${what}; u64 values above 2^53 are exact JSON integers`,
  };
}

/** `--glob`: inputs are literal paths unless asked (`run[1].jsonl` is that file). */
export const globOption: OptionSpec = {
  type: "boolean",
  description: "read inputs with *, ?, [ ] or { } as patterns (paths are literal otherwise)",
};

/** `--follow-symlinks`: a folder input does not lead out of itself unless asked. */
export const followSymlinksOption: OptionSpec = {
  type: "boolean",
  description: "follow symbolic links that lead out of a folder input (skipped otherwise)",
};

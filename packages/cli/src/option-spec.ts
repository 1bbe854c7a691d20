import { Option } from "commander";
import type { OptionSpec } from "./command.js";

/** The commander option of one spec: `-o, --output <FILE>` for a string, `--json` for a flag. */
export function buildOption(name: string, spec: OptionSpec): Option {
  const short = spec.short === undefined ? "" : `-${spec.short}, `;
  const value = spec.type === "string" ? ` <${spec.valueName ?? "VALUE"}>` : "";
  const option = new Option(`${short}--${name}${value}`, spec.description);
  return option;
}

// `--time-threshold 5%` / `2ms`, `--memory-threshold 5%` / `64MiB`: a share of the baseline median,
// or an amount in the metric's unit.
import type { RegressThreshold } from "@cg/sql";
import { UsageError } from "../cli-error.js";

const DURATION_SCALE: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, ms: 1e6, s: 1e9 };
const BYTE_SCALE: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

/** Parses `5%`, or an amount with a unit of `unit` (no unit: ns or bytes). */
export function parseThreshold(text: string, unit: "ns" | "bytes", option: string): RegressThreshold {
  const match = /^([0-9]+(?:\.[0-9]+)?)\s*(%|[a-zµ]*)$/i.exec(text.trim());
  const scales = unit === "ns" ? DURATION_SCALE : BYTE_SCALE;
  const suffix = match?.[2]?.toLowerCase() ?? "";
  const scale = suffix === "" ? 1 : suffix === "%" ? 1 : scales[suffix];
  if (match === null || scale === undefined) {
    const units = Object.keys(scales).join(", ");
    throw new UsageError({
      message: `regress: --${option} must be a percentage such as 5% or an amount in ${units}, got "${text}"`,
    });
  }
  const value = Number(match[1]);
  return suffix === "%" ? { percent: value } : { absolute: value * scale };
}

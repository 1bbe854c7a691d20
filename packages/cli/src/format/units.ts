import { formatU64, type U64, u64ToBigInt } from "@cg/schema/core";

const BYTE_UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"] as const;

/** Human-readable bytes with the exact count: `4096` → `4.00 KiB (4096 B)`; small values stay exact. */
export function formatBytes(value: U64): string {
  const short = formatBytesShort(value);
  return short.endsWith(" B") ? short : `${short} (${formatU64(value)} B)`;
}

/** Short bytes for table cells: `4.00 KiB`, `512 B`. */
export function formatBytesShort(value: U64): string {
  const exact = u64ToBigInt(value);
  if (exact < 1024n) return `${formatU64(value)} B`;
  let unitIndex = 0;
  let scaled = Number(exact);
  while (scaled >= 1024 && unitIndex < BYTE_UNITS.length - 1) {
    scaled /= 1024;
    unitIndex += 1;
  }
  return `${scaled.toFixed(2)} ${BYTE_UNITS[unitIndex]}`;
}

/** Nanoseconds as a readable duration: `950 ns`, `12.300 µs`, `4.500 ms`, `2.000 s`. */
export function formatDuration(value: U64): string {
  const exact = u64ToBigInt(value);
  if (exact < 1000n) return `${exact} ns`;
  const nanoseconds = Number(exact);
  if (nanoseconds < 1e6) return `${(nanoseconds / 1e3).toFixed(3)} µs`;
  if (nanoseconds < 1e9) return `${(nanoseconds / 1e6).toFixed(3)} ms`;
  return `${(nanoseconds / 1e9).toFixed(3)} s`;
}

/** Signed percentage with one decimal, or `n/a` when the base is zero. */
export function formatPercent(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return "n/a";
  return `${value >= 0 ? "+" : ""}${value.toFixed(1)}%`;
}

/** Signed exact difference of two U64 values (as a bigint). */
export function signedDelta(candidate: U64, baseline: U64): bigint {
  return u64ToBigInt(candidate) - u64ToBigInt(baseline);
}

/** `+1200 ns (+1.200 µs)` style signed duration. */
export function formatSignedDuration(delta: bigint): string {
  const sign = delta < 0n ? "-" : "+";
  const magnitude = delta < 0n ? -delta : delta;
  return `${sign}${formatDuration(magnitude)}`;
}

export function formatSignedBytes(delta: bigint): string {
  const sign = delta < 0n ? "-" : "+";
  const magnitude = delta < 0n ? -delta : delta;
  return `${sign}${formatBytesShort(magnitude)}`;
}

/** Largest value of a wire u64 field: 2^64 − 1. */
export const U64_MAX = 18446744073709551615n;

/**
 * A wire u64 value. Values up to `Number.MAX_SAFE_INTEGER` are plain numbers; larger ones are
 * exact `bigint`s, so nothing is ever rounded (spec §5.2). Decoders normalise: a value that fits in
 * a safe integer is always a `number`. Its zod schema is in u64-schema.ts.
 */
export type U64 = number | bigint;

const MAX_SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Normalises an exact integer to the U64 representation (number when safe, else bigint). The one
 * place that decides the representation: every package normalises through it.
 */
export function normalizeU64(value: bigint): U64 {
  return value <= MAX_SAFE_BIG ? Number(value) : value;
}

/**
 * An exact integer clamped into the u64 range: 2^64 − 1 above it (sums and products saturate
 * there, like every u64 figure of the reference), 0 below it (differences saturate there). The one
 * place that saturates: every package's saturating arithmetic goes through it.
 */
export function saturateU64(value: bigint): bigint {
  return value > U64_MAX ? U64_MAX : value < 0n ? 0n : value;
}

/** Exact bigint view of a U64. */
export function u64ToBigInt(value: U64): bigint {
  return typeof value === "bigint" ? value : BigInt(value);
}

/** True when `value` is a valid U64 (safe non-negative integer, or bigint in range). */
export function isU64(value: unknown): value is U64 {
  if (typeof value === "number") return Number.isSafeInteger(value) && value >= 0 && !Object.is(value, -0);
  if (typeof value === "bigint") return value >= 0n && value <= U64_MAX;
  return false;
}

/** Exact comparison of two U64 values: negative, zero or positive. */
export function compareU64(left: U64, right: U64): number {
  if (typeof left === "number" && typeof right === "number") return left - right;
  const a = u64ToBigInt(left);
  const b = u64ToBigInt(right);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Saturating addition at 2^64 − 1, exact at every size. */
export function addU64Saturating(left: U64, right: U64): U64 {
  if (typeof left === "number" && typeof right === "number") {
    const sum = left + right;
    if (sum <= Number.MAX_SAFE_INTEGER) return sum;
  }
  return normalizeU64(saturateU64(u64ToBigInt(left) + u64ToBigInt(right)));
}

/** Saturating subtraction at 0. */
export function subtractU64Saturating(left: U64, right: U64): U64 {
  if (typeof left === "number" && typeof right === "number") return left > right ? left - right : 0;
  return normalizeU64(saturateU64(u64ToBigInt(left) - u64ToBigInt(right)));
}

/** Decimal digits of a U64 (exact; never an exponent). */
export function formatU64(value: U64): string {
  return typeof value === "bigint" ? value.toString() : String(value);
}

/**
 * A number that survives JSON exactly: a plain number while it is a safe integer (or any
 * non-integral float), otherwise its decimal digits as a string. `bigint` cannot go through
 * `JSON.stringify`, and rounding a u64 byte count quietly is never acceptable.
 */
export type ExactNumber = number | string;

export function toExact(value: number | bigint): ExactNumber {
  if (typeof value === "bigint") {
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  }
  if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
    // An unsafe integral double has already lost precision; keep its digits without an exponent.
    return BigInt(value).toString();
  }
  return value;
}

/** Approximate double of an exact value, for drawing and sorting only. */
export function approximate(value: number | bigint): number {
  return typeof value === "bigint" ? Number(value) : value;
}

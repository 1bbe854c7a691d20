// The integer of a delta in a comparison: a number while it is safe, a bigint beyond 2^53.
export type SignedInteger = number | bigint;

const MIN_SAFE_BIG = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER);

/** An exact signed integer as a SignedInteger: the one place comparisons choose the representation. */
export function signedInteger(value: bigint): SignedInteger {
  return value >= MIN_SAFE_BIG && value <= MAX_SAFE_BIG ? Number(value) : value;
}

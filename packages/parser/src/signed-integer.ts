// The integer of a delta in a comparison: a number while it is safe, a bigint beyond 2^53.
export type SignedInteger = number | bigint;

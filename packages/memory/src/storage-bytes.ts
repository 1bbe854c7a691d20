// Element count, dense bytes and resolution (spec §15.2–§15.4). These run on the writer's hot path:
// while the running product stays a safe integer everything is plain-number arithmetic.
import { normalizeU64, saturateU64, type U64, U64_MAX } from "@cg/schema/core";
import { dtypeSizeBytes } from "./dtype-size.js";
import { MemoryInputError } from "./memory-input-error.js";

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

function invalidDimension(dimension: unknown, index: number): MemoryInputError {
  const shown = typeof dimension === "bigint" ? `${dimension}n` : String(dimension);
  return new MemoryInputError({
    message: `shape[${index}] must be an integer in 0..2^64-1 (a safe integer number or a bigint), got ${shown}`,
    path: `shape[${index}]`,
  });
}

function bigDimension(dimension: U64, index: number): bigint {
  if (typeof dimension === "bigint") {
    if (dimension < 0n || dimension > U64_MAX) throw invalidDimension(dimension, index);
    return dimension;
  }
  if (!Number.isSafeInteger(dimension) || dimension < 0) throw invalidDimension(dimension, index);
  return BigInt(dimension);
}

function bigElementCount(shape: readonly U64[], startIndex: number, product: bigint): U64 {
  let count = product;
  for (let index = startIndex; index < shape.length; index++) {
    count = saturateU64(count * bigDimension(shape[index] as U64, index));
  }
  return normalizeU64(count);
}

/**
 * Number of elements of a shape: the product of its dimensions starting from 1, each multiplication
 * saturating at 2^64 − 1 (spec §15.2). `[]` is 1 (a scalar); any zero dimension gives 0, even after
 * saturation. Exact at every size: a plain number while the product is a safe integer, a bigint beyond.
 * @throws MemoryInputError for a negative, fractional or out-of-range dimension.
 */
export function elementCount(shape: readonly U64[]): U64 {
  let count = 1;
  for (let index = 0; index < shape.length; index++) {
    const dimension = shape[index];
    if (typeof dimension === "number" && Number.isSafeInteger(dimension) && dimension >= 0) {
      // A float product that is <= MAX_SAFE is exact; an exact product above it rounds to > MAX_SAFE.
      const next = count * dimension;
      if (next <= MAX_SAFE) {
        count = next;
        continue;
      }
    }
    return bigElementCount(shape, index, BigInt(count));
  }
  return count;
}

/** `left × right` saturating at 2^64 − 1, exact. */
export function multiplyU64Saturating(left: U64, right: U64): U64 {
  if (typeof left === "number" && typeof right === "number") {
    const product = left * right;
    if (product <= MAX_SAFE) return product;
  }
  return normalizeU64(saturateU64(BigInt(left) * BigInt(right)));
}

/**
 * Dense footprint of a tensor (spec §15.3): element count × element size, saturating at 2^64 − 1;
 * 0 when the shape has no elements, and 0 (not an error) for an unknown dtype (reference quirk, §17 Q3).
 */
export function storageBytes(shape: readonly U64[], dtype: string): U64 {
  const count = elementCount(shape);
  if (count === 0) return 0;
  const size = dtypeSizeBytes(dtype);
  if (size === undefined) return 0;
  return multiplyU64Saturating(count, size);
}

/**
 * Resolved `storage_bytes` (spec §15.4): an explicit value (including 0, and including values larger
 * than the derived one) is returned unchanged; otherwise the dense bytes of {@link storageBytes}.
 */
export function resolveStorageBytes(explicit: U64 | undefined, shape: readonly U64[], dtype: string): U64 {
  return explicit === undefined ? storageBytes(shape, dtype) : explicit;
}

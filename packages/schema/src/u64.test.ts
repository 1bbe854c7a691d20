// The u64 representation and saturation rules that every package routes through (u64.ts), held to
// exact bigint arithmetic on values across the whole range, both sides of 2^53 and of 2^64.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addU64Saturating,
  isU64,
  normalizeU64,
  saturateU64,
  subtractU64Saturating,
  type U64,
  U64_MAX,
  u64ToBigInt,
} from "./u64.js";

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Any u64, weighted towards the edges where the representation or saturation changes. */
const u64Big = fc.oneof(
  fc.bigInt({ min: 0n, max: U64_MAX }),
  fc.bigInt({ min: SAFE - 4n, max: SAFE + 4n }),
  fc.bigInt({ min: U64_MAX - 4n, max: U64_MAX }),
  fc.bigInt({ min: 0n, max: 4n }),
);
const u64 = u64Big.map(normalizeU64);

function clamp(value: bigint): bigint {
  if (value > U64_MAX) return U64_MAX;
  if (value < 0n) return 0n;
  return value;
}

describe("normalizeU64", () => {
  it("is a number exactly when the value is a safe integer, and never changes the value", () => {
    fc.assert(
      fc.property(u64Big, (value) => {
        const normal = normalizeU64(value);
        expect(typeof normal).toBe(value <= SAFE ? "number" : "bigint");
        expect(u64ToBigInt(normal)).toBe(value);
      }),
    );
    expect(normalizeU64(SAFE)).toBe(Number.MAX_SAFE_INTEGER);
    expect(normalizeU64(SAFE + 1n)).toBe(SAFE + 1n);
  });
});

describe("saturateU64", () => {
  it("clamps any integer into 0..2^64 − 1 and keeps every value inside", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(U64_MAX * 2n), max: U64_MAX * 2n }), (value) => {
        expect(saturateU64(value)).toBe(clamp(value));
      }),
    );
    expect(saturateU64(U64_MAX + 1n)).toBe(U64_MAX);
    expect(saturateU64(U64_MAX)).toBe(U64_MAX);
    expect(saturateU64(-1n)).toBe(0n);
    expect(saturateU64(0n)).toBe(0n);
  });
});

describe("saturating arithmetic", () => {
  it("adds exactly, saturating at 2^64 − 1, in the normal representation", () => {
    fc.assert(
      fc.property(u64, u64, (left: U64, right: U64) => {
        const sum = addU64Saturating(left, right);
        expect(u64ToBigInt(sum)).toBe(clamp(u64ToBigInt(left) + u64ToBigInt(right)));
        expect(sum).toStrictEqual(normalizeU64(u64ToBigInt(sum)));
        expect(isU64(sum)).toBe(true);
      }),
    );
    expect(addU64Saturating(U64_MAX, 1)).toBe(U64_MAX);
    expect(addU64Saturating(Number.MAX_SAFE_INTEGER, 1)).toBe(SAFE + 1n);
  });

  it("subtracts exactly, saturating at 0, in the normal representation", () => {
    fc.assert(
      fc.property(u64, u64, (left: U64, right: U64) => {
        const difference = subtractU64Saturating(left, right);
        expect(u64ToBigInt(difference)).toBe(clamp(u64ToBigInt(left) - u64ToBigInt(right)));
        expect(difference).toStrictEqual(normalizeU64(u64ToBigInt(difference)));
      }),
    );
    expect(subtractU64Saturating(SAFE + 2n, 2)).toBe(Number.MAX_SAFE_INTEGER);
    expect(subtractU64Saturating(1, U64_MAX)).toBe(0);
  });
});

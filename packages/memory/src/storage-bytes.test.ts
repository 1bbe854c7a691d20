import { type U64, U64_MAX } from "@cg/schema";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryInputError } from "./memory-input-error.js";
import { elementCount, multiplyU64Saturating, resolveStorageBytes, storageBytes } from "./storage-bytes.js";

const exactU64 = (value: bigint): U64 => (value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value);

function referenceCount(shape: readonly bigint[]): bigint {
  let count = 1n;
  for (const dimension of shape) {
    count *= dimension;
    if (count > U64_MAX) count = U64_MAX;
  }
  return count;
}

describe("spec §15.4 examples", () => {
  it.each<[U64[], string, U64]>([
    [[32, 32], "f32", 4096],
    [[32, 32], "bf16", 2048],
    [[8, 8], "f32", 256],
    [[], "f32", 4],
    [[0, 128], "f32", 0],
    [[16], "f8e4m3", 0],
    [[4294967296, 4294967296, 2], "f64", U64_MAX],
    [[4294967297, 4294967295], "u8", 18446744073709551615n],
    [[3037000499, 3037000499], "u8", 9223372030926249001n],
  ])("example %#: %s", (shape, dtype, expected) => {
    expect(storageBytes(shape, dtype)).toBe(expected);
    expect(resolveStorageBytes(undefined, shape, dtype)).toBe(expected);
  });

  it("keeps an explicit value unchanged", () => {
    expect(resolveStorageBytes(999, [4], "f32")).toBe(999);
    expect(resolveStorageBytes(0, [4], "f32")).toBe(0);
    expect(resolveStorageBytes(U64_MAX, [], "unknown")).toBe(U64_MAX);
  });

  it("[4294967297, 4294967295] is exactly 2^64 - 1 without saturating", () => {
    expect(4294967297n * 4294967295n).toBe(U64_MAX);
  });
});

describe("elementCount (spec §15.2)", () => {
  it("starts from 1 and zero wins even after saturation", () => {
    expect(elementCount([])).toBe(1);
    expect(elementCount([0])).toBe(0);
    expect(elementCount([U64_MAX, 0])).toBe(0);
    expect(elementCount([U64_MAX, 2, 0])).toBe(0);
    expect(elementCount([U64_MAX, 2])).toBe(U64_MAX);
  });

  it("switches to bigint exactly at the safe-integer boundary", () => {
    expect(elementCount([Number.MAX_SAFE_INTEGER])).toBe(Number.MAX_SAFE_INTEGER);
    expect(elementCount([2 ** 26, 2 ** 27])).toBe(2n ** 53n);
    expect(elementCount([2 ** 26, 2 ** 27 - 1])).toBe(2 ** 53 - 2 ** 26);
    expect(elementCount([94906267, 94906267])).toBe(9007199515875289n);
    expect(elementCount([2n ** 40n, 1])).toBe(2 ** 40);
  });

  it("accepts bigint dimensions and normalises small results to numbers", () => {
    expect(elementCount([3n, 4n])).toBe(12);
    expect(elementCount([2n ** 60n, 4n, 0n])).toBe(0);
  });

  it.each<[unknown[], string]>([
    [[-1], "shape[0]"],
    [[2, 1.5], "shape[1]"],
    [[1, 2, Number.NaN], "shape[2]"],
    [[2 ** 60], "shape[0]"],
    [[-1n], "shape[0]"],
    [[U64_MAX + 1n], "shape[0]"],
    [[2 ** 40, 2 ** 40, -3], "shape[2]"],
  ])("rejects bad dimension case %#", (shape, path) => {
    let caught: unknown;
    try {
      elementCount(shape as U64[]);
    } catch (error) {
      caught = error;
    }
    expect(MemoryInputError.isInstance(caught)).toBe(true);
    expect((caught as MemoryInputError).path).toBe(path);
    expect((caught as MemoryInputError).message).toContain(path);
  });
});

describe("properties", () => {
  const dimension = fc.oneof(
    fc.integer({ min: 0, max: 4096 }),
    fc.bigInt({ min: 0n, max: U64_MAX }).map(exactU64),
    fc.constantFrom<U64>(0, 1, 2 ** 32, 4294967297, Number.MAX_SAFE_INTEGER, U64_MAX),
  );
  const shape = fc.array(dimension, { maxLength: 6 });

  it("agrees with exact saturating bigint math", () => {
    fc.assert(
      fc.property(shape, (dims) => {
        const expected = referenceCount(dims.map((value) => BigInt(value)));
        expect(elementCount(dims)).toBe(exactU64(expected));
      }),
    );
  });

  it("is independent of dimension order", () => {
    fc.assert(
      fc.property(
        shape.chain((dims) =>
          fc.tuple(fc.constant(dims), fc.shuffledSubarray(dims, { minLength: dims.length })),
        ),
        ([dims, shuffled]) => {
          expect(elementCount(shuffled)).toBe(elementCount(dims));
        },
      ),
    );
  });

  it("storage bytes are count × size saturated, or 0", () => {
    fc.assert(
      fc.property(shape, fc.constantFrom("u8", "bf16", "f32", "F64", "f8e4m3"), (dims, dtype) => {
        const size = { u8: 1n, bf16: 2n, f32: 4n, F64: 8n, f8e4m3: 0n }[dtype] as bigint;
        const product = referenceCount(dims.map((value) => BigInt(value))) * size;
        const result = storageBytes(dims, dtype);
        expect(result).toBe(exactU64(product > U64_MAX ? U64_MAX : product));
        expect(typeof result === "bigint" ? result > BigInt(Number.MAX_SAFE_INTEGER) : true).toBe(true);
      }),
    );
  });

  it("multiplyU64Saturating never exceeds 2^64 - 1 and is exact below", () => {
    const u64 = fc.bigInt({ min: 0n, max: U64_MAX }).map(exactU64);
    fc.assert(
      fc.property(u64, u64, (left, right) => {
        const product = BigInt(left) * BigInt(right);
        expect(multiplyU64Saturating(left, right)).toBe(exactU64(product > U64_MAX ? U64_MAX : product));
      }),
    );
  });
});

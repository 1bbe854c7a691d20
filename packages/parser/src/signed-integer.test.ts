import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { signedInteger } from "./signed-integer.js";

describe("signedInteger", () => {
  it("is a number exactly within the safe range, a bigint beyond it on either side", () => {
    const max = BigInt(Number.MAX_SAFE_INTEGER);
    expect(signedInteger(max)).toBe(Number.MAX_SAFE_INTEGER);
    expect(signedInteger(-max)).toBe(-Number.MAX_SAFE_INTEGER);
    expect(signedInteger(max + 1n)).toBe(max + 1n);
    expect(signedInteger(-max - 1n)).toBe(-max - 1n);
    expect(signedInteger(0n)).toBe(0);
  });

  it("keeps every value exact", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }), (value) => {
        const result = signedInteger(value);
        expect(BigInt(result)).toBe(value);
        expect(typeof result === "number").toBe(
          Number.isSafeInteger(Number(value)) && BigInt(Number(value)) === value,
        );
      }),
    );
  });
});

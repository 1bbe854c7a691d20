import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { integerDigits } from "./integer-digits.js";

describe("integerDigits", () => {
  it("equals String(n) for every safe non-negative integer", () => {
    for (const value of [
      0,
      9,
      1073741823,
      1073741824,
      1e9,
      1e9 - 1,
      1e9 + 1,
      999999999999,
      1e15,
      Number.MAX_SAFE_INTEGER,
    ]) {
      expect(integerDigits(value)).toBe(String(value));
    }
    fc.assert(fc.property(fc.maxSafeNat(), (value) => integerDigits(value) === String(value)));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9007199 }), fc.integer({ min: -3, max: 3 }), (high, delta) => {
        const value = high * 1e9 + delta;
        return integerDigits(value) === String(value);
      }),
    );
  });
});

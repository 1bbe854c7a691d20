import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatCanonicalFloat } from "./encode-float.js";

describe("formatCanonicalFloat (spec §6.2)", () => {
  it.each([
    [1, "1.0"],
    [3, "3.0"],
    [0, "0.0"],
    [-0, "-0.0"],
    [1e15, "1000000000000000.0"],
    [0.42, "0.42"],
    [0.00001, "0.00001"],
    [123456.789, "123456.789"],
    [1e-6, "1e-6"],
    [1e-7, "1e-7"],
    [2.5e-8, "2.5e-8"],
    [5e-324, "5e-324"],
    [1e16, "1e+16"],
    [1.5e300, "1.5e+300"],
    [-2.5, "-2.5"],
    [-1e-7, "-1e-7"],
    [123456789012345.6, "123456789012345.6"],
    [Number.NaN, "null"],
    [Number.POSITIVE_INFINITY, "null"],
    [Number.NEGATIVE_INFINITY, "null"],
  ])("%s -> %s", (value, expected) => {
    expect(formatCanonicalFloat(value)).toBe(expected);
  });

  it("reads back to the same f64 for every finite double", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        expect(Object.is(Number(formatCanonicalFloat(value)), value)).toBe(true);
      }),
      { numRuns: 20_000 },
    );
  });

  it("keeps a fraction or an exponent in every finite output, so it always reads as a float", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        expect(formatCanonicalFloat(value)).toMatch(/^-?\d+(\.\d+)?(e[+-]\d+)?$/);
        expect(formatCanonicalFloat(value)).toMatch(/[.e]/);
      }),
    );
  });
});

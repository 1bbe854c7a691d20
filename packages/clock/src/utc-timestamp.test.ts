import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { utcTimestamp } from "./utc-timestamp.js";

const at = (iso: string) => Date.parse(iso);

describe("utcTimestamp (spec §14)", () => {
  it.each([
    [0, "1970-01-01T00:00:00.000Z"],
    [at("2024-02-29T12:34:56.789Z"), "2024-02-29T12:34:56.789Z"],
    [at("2000-02-29T00:00:00.000Z"), "2000-02-29T00:00:00.000Z"],
    [at("1900-02-28T23:59:59.999Z") + 1, "1900-03-01T00:00:00.000Z"],
    [at("2024-12-31T23:59:59.999Z"), "2024-12-31T23:59:59.999Z"],
    [at("2024-12-31T23:59:59.999Z") + 1, "2025-01-01T00:00:00.000Z"],
    [-1, "1969-12-31T23:59:59.999Z"],
    [-62_167_219_200_000, "0000-01-01T00:00:00.000Z"],
    [253_402_300_799_999, "9999-12-31T23:59:59.999Z"],
    [at("0999-03-01T01:02:03.004Z"), "0999-03-01T01:02:03.004Z"],
    [at("0004-02-29T00:00:00.000Z"), "0004-02-29T00:00:00.000Z"],
    [1_754_330_400_123, "2025-08-04T18:00:00.123Z"],
  ])("%d -> %s", (epochMs, expected) => {
    expect(utcTimestamp(epochMs)).toBe(expected);
  });

  it("truncates fractional milliseconds instead of rounding", () => {
    expect(utcTimestamp(999.9)).toBe("1970-01-01T00:00:00.999Z");
    expect(utcTimestamp(59_999.99)).toBe("1970-01-01T00:00:59.999Z");
    expect(utcTimestamp(-0.5)).toBe("1969-12-31T23:59:59.999Z");
    expect(utcTimestamp(253_402_300_799_999.5)).toBe("9999-12-31T23:59:59.999Z");
  });

  it("has 1900 as a common year and 2000 as a leap year", () => {
    expect(utcTimestamp(at("1900-02-28T00:00:00.000Z") + 86_400_000)).toBe("1900-03-01T00:00:00.000Z");
    expect(utcTimestamp(at("2000-02-28T00:00:00.000Z") + 86_400_000)).toBe("2000-02-29T00:00:00.000Z");
  });

  it("defaults to now", () => {
    const before = Date.now();
    const text = utcTimestamp();
    const after = Date.now();
    expect(text).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const parsed = Date.parse(text);
    expect(parsed).toBeGreaterThanOrEqual(before);
    expect(parsed).toBeLessThanOrEqual(after);
  });

  it.each([-62_167_219_200_001, 253_402_300_800_000, 8.64e15, Number.NaN, Number.POSITIVE_INFINITY])(
    "rejects %d with a RangeError",
    (epochMs) => {
      expect(() => utcTimestamp(epochMs)).toThrow(RangeError);
      expect(() => utcTimestamp(epochMs)).toThrow(/utcTimestamp/);
    },
  );

  it("equals toISOString for every instant in years 0-9999", () => {
    fc.assert(
      fc.property(
        fc.double({ min: -62_167_219_200_000, max: 253_402_300_799_999.9, noNaN: true }),
        (epochMs) => {
          expect(utcTimestamp(epochMs)).toBe(new Date(Math.floor(epochMs)).toISOString());
        },
      ),
      { numRuns: 2000 },
    );
  });
});

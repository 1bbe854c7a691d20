import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rawNumberField } from "./raw-integer-field.js";

describe("rawNumberField", () => {
  it("reads the top-level field's digits, not a nested one's or a string's", () => {
    const text =
      '{"name":"\\"ts\\":1","args":{"ts":2,"list":[{"ts":3}]},"ts":18446744073709551615,"dur":9007199254740993}';
    expect(rawNumberField(text, "ts")).toBe("18446744073709551615");
    expect(rawNumberField(text, "dur")).toBe("9007199254740993");
    expect(rawNumberField(text, "missing")).toBeUndefined();
  });

  it("takes the last of repeated keys and decodes escaped key names, as JSON.parse does", () => {
    expect(rawNumberField('{"ts":1,"ts":9007199254740995}', "ts")).toBe("9007199254740995");
    expect(rawNumberField('{ "t\\u0073" : 12345678901234567890 }', "ts")).toBe("12345678901234567890");
    expect(rawNumberField('{"ts":1.5e300}', "ts")).toBe("1.5e300");
  });

  it("gives back the exact digits of any u64 wherever the field sits among others", () => {
    const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
    const other = fc.dictionary(
      fc.string().filter((key) => key !== "ts"),
      fc.jsonValue({ maxDepth: 2 }),
      { maxKeys: 4 },
    );
    fc.assert(
      fc.property(u64, other, other, (value, before, after) => {
        const head = JSON.stringify(before).slice(1, -1);
        const tail = JSON.stringify(after).slice(1, -1);
        const text = `{${head}${head === "" ? "" : ","}"ts":${value}${tail === "" ? "" : ","}${tail}}`;
        JSON.parse(text); // the scanner only sees text JSON.parse accepted
        expect(rawNumberField(text, "ts")).toBe(String(value));
      }),
      { numRuns: 300 },
    );
  });
});

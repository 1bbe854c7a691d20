import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hashString } from "./string-hash.js";

describe("hashString", () => {
  it("is a 30-bit small integer, the same for equal text and seed", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.integer({ min: 0, max: 1 << 20 }), (text, seed) => {
        const hash = hashString(text, seed);
        expect(Number.isInteger(hash) && hash >= 0 && hash < 2 ** 30).toBe(true);
        // A copy made another way (not the same string object) hashes the same.
        expect(hashString([...text].join(""), seed)).toBe(hash);
      }),
    );
  });

  it("spreads ids that differ in one unit, and tells seeds apart", () => {
    const ids = Array.from({ length: 4096 }, (_, index) => `t${index}`);
    const buckets = new Set(ids.map((id) => hashString(id) & 4095));
    // A table of 4096 slots: a usable hash fills well over half of them (uniform: about 63 %).
    expect(buckets.size).toBeGreaterThan(2300);
    expect(ids.filter((id) => hashString(id, 1) === hashString(id, 2)).length).toBeLessThan(4);
    expect(hashString("t1", 0)).not.toBe(hashString("t1", 1));
  });
});

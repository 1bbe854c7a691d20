import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { StringSet } from "./string-set.js";

describe("StringSet", () => {
  it("behaves like Set under random add/delete/has sequences", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom("add", "delete", "has"), fc.string({ maxLength: 3 })), {
          maxLength: 400,
        }),
        (operations) => {
          const set = new StringSet(1);
          const model = new Set<string>();
          for (const [operation, value] of operations) {
            if (operation === "add") {
              expect(set.add(value)).toBe(!model.has(value));
              model.add(value);
            } else if (operation === "delete") {
              expect(set.delete(value)).toBe(model.delete(value));
            } else {
              expect(set.has(value)).toBe(model.has(value));
            }
            expect(set.size).toBe(model.size);
          }
          for (const value of model) expect(set.has(value)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("keeps its entries through long churn and growth", () => {
    const set = new StringSet();
    for (let index = 0; index < 100_000; index++) {
      expect(set.add(`t${index}`)).toBe(true);
      if (index >= 100) expect(set.delete(`t${index - 100}`)).toBe(true);
    }
    expect(set.size).toBe(100);
    for (let index = 99_900; index < 100_000; index++) expect(set.has(`t${index}`)).toBe(true);
    expect(set.has("t99899")).toBe(false);
  });
});

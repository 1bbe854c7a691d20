import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { opId, opIdBefore } from "./op-cost.js";

// Span ids that share prefixes with each other and with the `/op/` infix, beside arbitrary text.
const spanId = fc.oneof(
  fc.constantFrom("s1", "s12", "s1/op", "s1/op/", "s1/op/1", "", "é", "s\u{1F600}"),
  fc.string({ unit: fc.constantFrom("s", "1", "2", "/", "o", "p", "0", "9", ":") }),
  fc.string({ unit: "grapheme" }),
);
const ordinal = fc.oneof(
  fc.integer({ min: 0, max: 12 }),
  fc.constantFrom(9, 10, 99, 100, 999, 1000, 2 ** 31 - 1, 2 ** 31, Number.MAX_SAFE_INTEGER),
  fc.nat(),
);

describe("opIdBefore", () => {
  it("orders as `<` on the built id, against other op ids and arbitrary strings", () => {
    fc.assert(
      fc.property(
        spanId,
        ordinal,
        fc.oneof(
          fc.tuple(spanId, ordinal).map(([s, n]) => opId(s, n)),
          spanId,
        ),
        (s, n, other) => {
          const id = opId(s, n);
          expect(opIdBefore(s, n, other)).toBe(id < other);
          expect(opIdBefore(s, n, id)).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("decides on the ordinal's digits as strings do (10 sorts before 9)", () => {
    expect(opIdBefore("s1", 10, "s1/op/9")).toBe(true);
    expect(opIdBefore("s1", 9, "s1/op/10")).toBe(false);
    expect(opIdBefore("s1", 1, "s1/op/10")).toBe(true);
    expect(opIdBefore("s1", 0, "s1/op/")).toBe(false);
    expect(opIdBefore("s", 3, "s1/op/0")).toBe(true); // "/" sorts before "1"
  });
});

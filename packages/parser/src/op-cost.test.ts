import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OpIdOrder, opId, opIdBefore } from "./op-cost.js";

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

describe("OpIdOrder", () => {
  it("orders as `<` on the built id over runs of calls that share span ids and other ids", () => {
    const other = fc.oneof(
      fc.tuple(spanId, ordinal).map(([s, n]) => opId(s, n)),
      spanId,
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(spanId, ordinal, other), { minLength: 1, maxLength: 8 }),
        fc.array(fc.tuple(fc.nat(7), ordinal, fc.nat(7)), { maxLength: 40 }),
        (pairs, calls) => {
          const order = new OpIdOrder();
          // Calls pick their span and other id from a few pairs, so the kept prefix order is reused.
          for (const [pick, n, otherPick] of calls) {
            const s = (pairs[pick % pairs.length] as [string, number, string])[0];
            const against = (pairs[otherPick % pairs.length] as [string, number, string])[2];
            expect(order.before(s, n, against)).toBe(opId(s, n) < against);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("keeps no stale order when the other id changes under the same span", () => {
    const order = new OpIdOrder();
    expect(order.before("s2", 5, "s3/op/0")).toBe(true);
    expect(order.before("s2", 5, "s1/op/0")).toBe(false);
    expect(order.before("s2", 5, "s2/op/6")).toBe(true);
    expect(order.before("s2", 7, "s2/op/6")).toBe(false);
    expect(order.before("s2", 7, "s2/op/")).toBe(false);
  });
});

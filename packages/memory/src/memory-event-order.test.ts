// Spec §11 step 1 against a statement of the rule made here: compare timestamps as integers, then
// the action (alloc first), then the tensor ids' code points one by one.
import type { MemoryEvent } from "@cg/schema/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareMemoryEvents, compareMemoryOrder, sortMemoryEvents } from "./memory-event-order.js";

type Ordered = Pick<MemoryEvent, "timestamp_ns" | "action" | "tensor_id">;

function expectedOrder(left: Ordered, right: Ordered): number {
  const leftTime = BigInt(left.timestamp_ns);
  const rightTime = BigInt(right.timestamp_ns);
  if (leftTime !== rightTime) return leftTime < rightTime ? -1 : 1;
  if (left.action !== right.action) return left.action === "alloc" ? -1 : 1;
  const a = Array.from(left.tensor_id, (character) => character.codePointAt(0) as number);
  const b = Array.from(right.tensor_id, (character) => character.codePointAt(0) as number);
  for (let at = 0; at < Math.min(a.length, b.length); at++) {
    if (a[at] !== b[at]) return (a[at] as number) < (b[at] as number) ? -1 : 1;
  }
  return Math.sign(a.length - b.length);
}

// Timestamps around 2^53, as numbers below it and bigints above (as the reader gives them).
const timestamp = fc
  .constantFrom(0n, 1n, 2n, 9007199254740991n, 9007199254740992n, 9007199254740993n, 18446744073709551615n)
  .map((value) => (value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value));
const event: fc.Arbitrary<Ordered> = fc.record({
  timestamp_ns: timestamp,
  action: fc.constantFrom("alloc" as const, "free" as const),
  // Astral characters and U+FFFF: UTF-16 order and code-point order differ there.
  tensor_id: fc.string({ unit: fc.constantFrom("a", "b", "\uFFFF", "\u{1F600}", "é"), maxLength: 3 }),
});

describe("memory event order", () => {
  it("is spec §11's order, from events and from values alike", () => {
    fc.assert(
      fc.property(event, event, (left, right) => {
        const expected = expectedOrder(left, right);
        expect(Math.sign(compareMemoryEvents(left, right))).toBe(expected);
        expect(Math.sign(compareMemoryEvents(right, left))).toBe(-expected || 0);
        expect(
          Math.sign(
            compareMemoryOrder(
              BigInt(left.timestamp_ns),
              left.action === "alloc",
              left.tensor_id,
              right.timestamp_ns,
              right.action === "alloc",
              right.tensor_id,
            ),
          ),
        ).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it("sorts stably: ties keep their input order", () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), (events) => {
        const tagged = events.map((fields, index) => ({ ...fields, index }));
        const sorted = sortMemoryEvents(tagged);
        for (let at = 1; at < sorted.length; at++) {
          const before = sorted[at - 1] as (typeof tagged)[number];
          const after = sorted[at] as (typeof tagged)[number];
          const order = expectedOrder(before, after);
          expect(order <= 0).toBe(true);
          if (order === 0) expect(before.index < after.index).toBe(true);
        }
        expect(sorted.length).toBe(events.length);
      }),
    );
  });
});

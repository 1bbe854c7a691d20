// Ids held per slot as UTF-16 units (or strings past 24 units) come back exactly, compare without a
// string, and survive the columns growing.
import fc from "fast-check";
import { expect, test } from "vitest";
import { SlotIds } from "./slot-ids.js";

test("every id comes back as set and equals only itself, across growth and reuse", () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: "binary", maxLength: 30 })), {
        minLength: 1,
        maxLength: 40,
      }),
      (ids) => {
        const column = new SlotIds(2);
        let slots = 2;
        ids.forEach((id, slot) => {
          if (slot === slots) {
            slots *= 2;
            column.grow(slots);
          }
          column.set(slot, id);
        });
        ids.forEach((id, slot) => {
          expect(column.get(slot)).toBe(id);
          expect(column.equals(slot, id)).toBe(true);
          expect(column.equals(slot, `${id}x`)).toBe(false);
          expect(column.equals(slot, id.slice(0, -1))).toBe(id === "");
          if (id !== "") {
            const lastChanged = id.slice(0, -1) + String.fromCharCode(id.charCodeAt(id.length - 1) ^ 1);
            expect(column.equals(slot, lastChanged)).toBe(false);
          }
          for (const other of ids) expect(column.equals(slot, other)).toBe(other === id);
        });
        // A slot reused for a shorter id forgets the longer one.
        column.clear(0);
        column.set(0, "t1");
        expect(column.get(0)).toBe("t1");
        expect(column.equals(0, ids[0] as string)).toBe(ids[0] === "t1");
      },
    ),
    { numRuns: 300 },
  );
});

test("ids of exactly 24 and of 25 units", () => {
  const column = new SlotIds(2);
  const short = "a".repeat(24);
  const long = `${"é".repeat(24)}z`;
  column.set(0, short);
  column.set(1, long);
  expect([column.get(0), column.get(1)]).toEqual([short, long]);
  expect(column.equals(1, long)).toBe(true);
  expect(column.equals(0, `${short}a`)).toBe(false);
});

import { expect, test } from "vitest";
import { hasSmallIntegerElements } from "../test/v8-predicates.js";
import { ColumnBatch } from "./column-batch.js";

test("each batch and each clear starts a dictionary of its own", () => {
  const first = new ColumnBatch();
  const second = new ColumnBatch();
  expect(first.strings).not.toBe(second.strings);
  expect(first.intern("t0")).toBe(0);
  expect(second.intern("s1")).toBe(0);
  expect(first.strings).toEqual(["t0"]);
  expect(second.strings).toEqual(["s1"]);

  // A consumer may hold the last batch's dictionary: a clear leaves it as it was.
  const held = first.strings;
  first.clear();
  expect(first.strings).not.toBe(held);
  expect(first.strings).toEqual([]);
  expect(first.intern("a-long-tensor-name-past-twelve-bytes")).toBe(0);
  expect(first.intern("t0")).toBe(1);
  expect(held).toEqual(["t0"]);
});

test("every batch and every clear has a generation no other has", () => {
  const batches = [new ColumnBatch(), new ColumnBatch()];
  const seen = new Set(batches.map((batch) => batch.generation));
  for (const batch of batches) {
    batch.clear();
    seen.add(batch.generation);
  }
  expect(seen.size).toBe(4);
});

test("a dictionary holds references from the start, as it will once it holds strings", () => {
  // An array literal starts out as small integers; the first string pushed changed its kind, and V8
  // threw away the interning code it had optimized on the last batch's dictionary.
  const batch = new ColumnBatch();
  expect(hasSmallIntegerElements(batch.strings)).toBe(false);
  batch.intern("t0");
  batch.clear();
  expect(hasSmallIntegerElements(batch.strings)).toBe(false);
});

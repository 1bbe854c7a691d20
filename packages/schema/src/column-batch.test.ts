import { expect, test } from "vitest";
import { hasSmallIntegerElements } from "../test/v8-predicates.js";
import { ColumnBatch } from "./column-batch.js";
import type { OpEvent } from "./events.js";

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

test("clearEvents keeps the dictionary, its ids and generation up to the cap, past it restarts", () => {
  const batch = new ColumnBatch();
  const op: OpEvent = {
    kind: "op",
    span_id: "s1",
    op_name: "matmul",
    inputs: ["t1"],
    shape: [2, 3],
    dtype: "f32",
    device: "cpu",
    duration_ns: 5,
    timestamp_ns: 0,
    input_storage_bytes: 0,
  };
  // The first call restarts whatever the size (so the restart has run before V8 optimizes callers).
  batch.appendEvent(op, 1, 0);
  const firstGeneration = batch.generation;
  batch.clearEvents(100);
  expect(batch.generation).not.toBe(firstGeneration);
  expect(batch.strings).toEqual([]);

  batch.appendEvent(op, 2, 1);
  const kept = batch.strings;
  const generation = batch.generation;
  const ids = kept.map((text) => batch.intern(text));
  batch.clearEvents(100);
  expect(batch.size).toBe(0);
  expect(batch.of("op").size).toBe(0);
  expect(batch.strings).toBe(kept);
  expect(batch.generation).toBe(generation);
  // The same strings get the same ids; a new one the next.
  expect(kept.map((text) => batch.intern(text))).toEqual(ids);
  expect(batch.intern("a-new-string")).toBe(kept.length - 1);
  // Events appended after the clear are read with the kept dictionary.
  batch.appendEvent({ ...op, op_name: "add" }, 3, 2);
  expect(batch.columnEvent(0)).toEqual({ ...op, op_name: "add" });

  // Past the cap, a dictionary of its own and a new generation, as `clear` gives.
  batch.clearEvents(2);
  expect(batch.strings).not.toBe(kept);
  expect(batch.strings).toEqual([]);
  expect(batch.generation).not.toBe(generation);
  expect(batch.size).toBe(0);
});

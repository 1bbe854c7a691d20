// Events built from a batch's columns hold whole numbers as V8 holds JSON.parse's: small integers
// unboxed. The columns are Float64Arrays, whose values V8 would otherwise store in each event as a
// boxed number (a 100 MB trace's document grew from 102 to 119 MiB of heap that way). Checked with
// V8's own predicates, which a test may use once natives syntax is allowed.
import { describe, expect, it } from "vitest";
import { hasSmallIntegerElements, isSmallInteger } from "../test/v8-predicates.js";
import { ColumnBatch } from "./column-batch.js";
import { compileColumnEventBuilders } from "./column-event-source.js";
import { decodedColumnReader } from "./decoded-column-reader.js";
import { encodeTraceEvent } from "./encode-events.js";
import type { EventLayoutTable } from "./event-layouts.js";
import type { TraceEvent } from "./events.js";

const OP = {
  kind: "op",
  span_id: "s1",
  op_name: "matmul",
  inputs: ["t1", "t2"],
  output: "t3",
  shape: [64, 128],
  dtype: "f32",
  device: "cpu",
  duration_ns: 90,
  timestamp_ns: 1252330,
} as const;
const EVENTS: TraceEvent[] = [
  OP,
  {
    kind: "memory",
    timestamp_ns: 1252980,
    tensor_id: "t3",
    span_id: "s1",
    op_name: "matmul",
    device: "cpu",
    bytes: 32768,
    action: "alloc",
    shape: [64, 128],
    dtype: "f32",
  },
  { ...OP, shape: [4294967296, 3], duration_ns: 4294967296, timestamp_ns: 18446744073709551615n },
] as TraceEvent[];
const LINES = EVENTS.map((event) => encodeTraceEvent(event));

/** The first two events, decoded from their lines and built from the columns. */
function smallEvents(): Record<string, unknown>[] {
  const batch = new ColumnBatch();
  const read = decodedColumnReader(batch);
  const bytes = new TextEncoder().encode(`${LINES.slice(0, 2).join("\n")}\n`);
  let start = 0;
  for (let line = 1; start < bytes.length; line++) {
    const end = read(bytes, start, line, line - 1);
    expect(end, `line ${line}`).toBeGreaterThan(start);
    start = end + 1;
  }
  return Array.from({ length: batch.size }, (_, at) => batch.columnEvent(at) as never);
}

/** The last event (its u64 above 15 digits is for the text tiers), appended and built from the columns. */
function bigEvent(): Record<string, unknown> {
  const batch = new ColumnBatch();
  batch.appendEvent(EVENTS[2] as TraceEvent, 3, 2);
  return batch.columnEvent(0) as never;
}

// In this order: once an event holds a larger number in a field, V8 boxes that field in every
// event of the same shape (as it does for JSON.parse's objects).
describe("events built from columns", () => {
  it("hold small whole numbers and shape dimensions as small integers", () => {
    const [op, memory] = smallEvents() as [Record<string, unknown>, Record<string, unknown>];
    for (const key of ["duration_ns", "timestamp_ns"])
      expect(isSmallInteger(op[key]), `op.${key}`).toBe(true);
    for (const key of ["timestamp_ns", "bytes"])
      expect(isSmallInteger(memory[key]), `memory.${key}`).toBe(true);
    expect(hasSmallIntegerElements(op.shape as unknown[])).toBe(true);
    expect(hasSmallIntegerElements(memory.shape as unknown[])).toBe(true);
  });

  it("keep larger values exact: a number up to 2^53 − 1, a bigint above", () => {
    const big = bigEvent();
    expect(big.duration_ns).toBe(4294967296);
    expect(big.timestamp_ns).toBe(18446744073709551615n);
    expect(big.shape).toEqual([4294967296, 3]);
  });
});

describe("the builders", () => {
  it("compile for any kind name, each named after its kind as an identifier", () => {
    const KIND = "a-kind \u00e9 (x)";
    const layouts: EventLayoutTable = {
      [KIND]: {
        kind: KIND,
        fields: [{ key: "id", type: "string", presence: "required", null: "rejected" }],
      },
    };
    const [build] = compileColumnEventBuilders(layouts) as NonNullable<
      ReturnType<typeof compileColumnEventBuilders>
    >;
    expect(build?.name).toBe("build_a_kind____x_");
    const batch = new ColumnBatch(layouts);
    batch.appendEvent({ kind: KIND, id: "s1" } as never, 1, 0);
    expect(batch.columnEvent(0)).toEqual({ kind: KIND, id: "s1" });
  });
});

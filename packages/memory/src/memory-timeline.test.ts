import { MEMORY_CATEGORIES, type MemoryEvent } from "@cg/schema";
import fc from "fast-check";
import { expect, test } from "vitest";
import { MemoryTimeline } from "./memory-timeline.js";

const eventArbitrary = fc.record({
  timestamp_ns: fc.oneof(fc.nat({ max: 50 }), fc.constant(2n ** 64n - 1n)),
  tensor_id: fc.oneof(
    fc.constantFrom("a", "b", "é"),
    fc.nat({ max: 40 }).map((n) => `t${n}`),
  ),
  span_id: fc.constantFrom("s1", "s2", "s3"),
  op_name: fc.option(fc.constantFrom("matmul", "add"), { nil: undefined }),
  device: fc.constantFrom("cpu", "cuda:0"),
  bytes: fc.oneof(fc.nat({ max: 64 }), fc.constant(2n ** 63n)),
  action: fc.constantFrom("alloc" as const, "alloc" as const, "free" as const),
  category: fc.constantFrom(...MEMORY_CATEGORIES),
});

test("pushValues gives push's analysis, timeline, points and peak breakdown", () => {
  fc.assert(
    fc.property(
      fc.array(eventArbitrary, { maxLength: 200 }),
      fc.constantFrom("reference" as const, "improved" as const),
      (drawn, compat) => {
        const steps = new Map([["s2", "backward" as const]]);
        const options = { compat, spanStep: (spanId: string) => steps.get(spanId) };
        const byEvents = new MemoryTimeline(options);
        const byValues = new MemoryTimeline(options);
        const points: unknown[] = [];
        const streamed = new MemoryTimeline({ ...options, onPoint: (point) => points.push(point) });
        for (const item of drawn) {
          const { op_name: opName, ...rest } = item;
          const event: MemoryEvent = {
            kind: "memory",
            ...rest,
            shape: [],
            dtype: "u8",
            ...(opName === undefined ? {} : { op_name: opName }),
          };
          byEvents.push(event);
          const values = [
            item.timestamp_ns,
            item.tensor_id,
            item.span_id,
            opName,
            item.device,
            item.bytes,
            item.action === "alloc",
            MEMORY_CATEGORIES.indexOf(item.category),
          ] as const;
          byValues.pushValues(...values);
          streamed.pushValues(...values);
        }
        const expected = byEvents.result();
        // Key order too: the analysis is printed as JSON.
        expect(
          JSON.stringify(byValues.result(), (_key, value) =>
            typeof value === "bigint" ? `${value}n` : value,
          ),
        ).toBe(JSON.stringify(expected, (_key, value) => (typeof value === "bigint" ? `${value}n` : value)));
        expect(points).toEqual(expected.timeline);
      },
    ),
    { numRuns: 300 },
  );
});

test("push still refuses a category or action off the wire", () => {
  const timeline = new MemoryTimeline();
  const event: MemoryEvent = {
    kind: "memory",
    timestamp_ns: 0,
    tensor_id: "t",
    span_id: "s",
    device: "cpu",
    bytes: 1,
    action: "alloc",
    shape: [],
    dtype: "u8",
    category: "activation",
  };
  expect(() => timeline.push({ ...event, category: "weights" as never })).toThrow(/category must be one of/);
  expect(() => timeline.push({ ...event, action: "move" as never })).toThrow(
    /action must be "alloc" or "free"/,
  );
  // A free's category is not checked (its allocation's counts), as before.
  expect(() => timeline.push({ ...event, action: "free", category: "weights" as never })).not.toThrow();
});

// The timeline's live allocations in slot columns against plain models of spec §11's live set (a
// map of records, as the timeline held them before): the same peak breakdown, entry for entry and
// key for key, with allocations replaced, freed on another device, freed twice and reused slots.
import { compareCodePoints, MEMORY_CATEGORIES, type MemoryEvent } from "@cg/schema";
import fc from "fast-check";
import { expect, test } from "vitest";
import { LiveAllocations } from "./live-allocations.js";
import type { PeakAllocation } from "./memory-analysis-types.js";
import { MemoryTimeline } from "./memory-timeline.js";

interface Held extends PeakAllocation {
  sequence: number;
}

/** The peak breakdown of spec §11 from a map of records: the live set at the peak, largest first. */
function modelBreakdown(events: readonly MemoryEvent[], improved: boolean): PeakAllocation[] {
  // Improved mode keys by device, then tensor id, and lists devices in the order first seen.
  const live = new Map<string, Map<string, Held>>();
  const liveOf = (event: MemoryEvent) => {
    const device = improved ? event.device : "";
    const perDevice = live.get(device) ?? new Map<string, Held>();
    live.set(device, perDevice);
    return perDevice;
  };
  const deviceLive = new Map<string, number>();
  let peak = 0;
  let peakSequence = -1;
  let removed: Held[] = [];
  const remove = (held: Held) => {
    if (held.sequence <= peakSequence) removed.push(held);
  };
  events.forEach((event, sequence) => {
    let total = deviceLive.get(event.device) ?? 0;
    if (event.action === "alloc") {
      total += event.bytes as number;
      const held: Held = {
        tensor_id: event.tensor_id,
        device: event.device,
        bytes: event.bytes,
        category: event.category,
        span_id: event.span_id,
        timestamp_ns: event.timestamp_ns,
        sequence,
      };
      if (event.op_name !== undefined) held.op_name = event.op_name;
      const replaced = liveOf(event).get(event.tensor_id);
      if (replaced !== undefined) remove(replaced);
      liveOf(event).set(event.tensor_id, held);
    } else {
      const perDevice = live.get(improved ? event.device : "");
      const held = perDevice?.get(event.tensor_id);
      if (held !== undefined) {
        perDevice?.delete(event.tensor_id);
        remove(held);
      }
      total = Math.max(0, total - ((held?.bytes ?? event.bytes) as number));
    }
    deviceLive.set(event.device, total);
    if (total > peak) {
      peak = total;
      peakSequence = sequence;
      removed = [];
    }
  });
  const entries = [
    ...removed,
    ...[...live.values()]
      .flatMap((perDevice) => [...perDevice.values()])
      .filter((held) => held.sequence <= peakSequence),
  ];
  return entries
    .map(({ sequence: _sequence, ...entry }) => entry)
    .sort((left, right) =>
      left.bytes !== right.bytes
        ? (right.bytes as number) - (left.bytes as number)
        : compareCodePoints(left.tensor_id, right.tensor_id),
    );
}

/**
 * Tensor ids from a small pool (replacements and frees of live ids), a large one (hundreds live at
 * once, so the index grows and moves entries on delete), and ids longer than the units a slot holds.
 */
const tensorArbitrary = fc.oneof(
  fc.constantFrom("a", "b", "c", "é"),
  fc.nat({ max: 299 }).map((n) => `t${n}`),
  fc.nat({ max: 9 }).map((n) => `a-tensor-id-longer-than-24-units-${n}`),
);

const eventArbitrary = fc.record({
  action: fc.constantFrom("alloc" as const, "alloc" as const, "free" as const),
  tensor: tensorArbitrary,
  bytes: fc.nat({ max: 64 }),
  device: fc.constantFrom("cpu", "cuda:0"),
  span: fc.constantFrom("s1", "s2"),
  op: fc.option(fc.constantFrom("matmul", "add"), { nil: undefined }),
  category: fc.constantFrom(...MEMORY_CATEGORIES),
});

test("the peak breakdown equals the one of a map of allocation records", () => {
  fc.assert(
    fc.property(
      fc.array(eventArbitrary, { maxLength: 600, size: "max" }),
      fc.boolean(),
      (drawn, improved) => {
        const events: MemoryEvent[] = drawn.map((item, index) => ({
          kind: "memory",
          timestamp_ns: index,
          tensor_id: item.tensor,
          span_id: item.span,
          device: item.device,
          bytes: item.bytes,
          action: item.action,
          shape: [],
          dtype: "u8",
          category: item.category,
          ...(item.op === undefined ? {} : { op_name: item.op }),
        }));
        const timeline = new MemoryTimeline({ timeline: false, compat: improved ? "improved" : "reference" });
        for (const event of events) timeline.push(event);
        const breakdown = timeline.result().peak_breakdown;
        // Key order too: the breakdown is printed as JSON.
        expect(JSON.stringify(breakdown)).toBe(JSON.stringify(modelBreakdown(events, improved)));
      },
    ),
    { numRuns: 500 },
  );
});

/** Adds an alloc event's allocation, as the timeline does. */
function addEvent(live: LiveAllocations, event: MemoryEvent, sequence: number): number {
  const category = MEMORY_CATEGORIES.indexOf(event.category);
  return live.add(
    event.tensor_id,
    event.device,
    event.bytes,
    event.timestamp_ns,
    category,
    event.span_id,
    event.op_name,
    sequence,
  );
}

function allocEvent(tensor: string, device: string, sequence: number): MemoryEvent {
  return {
    kind: "memory",
    timestamp_ns: sequence,
    tensor_id: tensor,
    span_id: "s",
    device,
    bytes: sequence,
    action: "alloc",
    shape: [],
    dtype: "u8",
    category: "activation",
  };
}

test("live allocations keep a Map's order: new keys last, a replaced key in its place", () => {
  const stepArbitrary = fc.record({
    take: fc.boolean(),
    tensor: tensorArbitrary,
    device: fc.constantFrom("cpu", "cuda:0"),
  });
  fc.assert(
    fc.property(fc.array(stepArbitrary, { maxLength: 800, size: "max" }), fc.boolean(), (steps, improved) => {
      const live = new LiveAllocations(improved);
      // Device (improved mode) -> tensor id -> sequence of its allocation.
      const model = new Map<string, Map<string, number>>();
      steps.forEach((step, sequence) => {
        const key = improved ? step.device : "";
        if (step.take) {
          const slot = live.take(step.device, step.tensor);
          expect(slot < 0 ? undefined : live.sequence(slot)).toBe(model.get(key)?.get(step.tensor));
          model.get(key)?.delete(step.tensor);
          if (slot >= 0) live.release(slot);
          return;
        }
        const perDevice = model.get(key) ?? new Map<string, number>();
        model.set(key, perDevice);
        const replaced = addEvent(live, allocEvent(step.tensor, step.device, sequence), sequence);
        expect(replaced < 0 ? undefined : live.sequence(replaced)).toBe(perDevice.get(step.tensor));
        if (replaced >= 0) live.release(replaced);
        perDevice.set(step.tensor, sequence);
      });
      const order = [...live.slots()].map((slot) => [
        live.peakAllocation(slot).tensor_id,
        live.sequence(slot),
      ]);
      expect(order).toEqual([...model.values()].flatMap((perDevice) => [...perDevice.entries()]));
    }),
    { numRuns: 300 },
  );
});

test("a reused slot gives back exactly the new allocation, u64 values above 2^53 included", () => {
  const live = new LiveAllocations(false);
  const first = addEvent(
    live,
    { ...allocEvent("x", "cuda:0", 0), op_name: "matmul", bytes: 2n ** 64n - 1n },
    0,
  );
  expect(first).toBe(-1);
  const slot = live.take("cuda:0", "x");
  expect(live.bytes(slot)).toBe(2n ** 64n - 1n);
  expect(live.peakAllocation(slot)).toMatchObject({ op_name: "matmul", bytes: 2n ** 64n - 1n });
  live.release(slot);
  addEvent(live, { ...allocEvent("y", "cpu", 1), timestamp_ns: 2n ** 60n, category: "gradient" }, 1);
  const [reused] = [...live.slots()];
  expect(reused).toBe(slot);
  expect(live.peakAllocation(reused as number)).toStrictEqual({
    tensor_id: "y",
    device: "cpu",
    bytes: 1,
    category: "gradient",
    span_id: "s",
    timestamp_ns: 2n ** 60n,
  });
});

// The timeline's live allocations in slot columns against a plain model of spec §11's live set (a
// map of records, as the timeline held them before): the same peak breakdown, entry for entry and
// key for key, with allocations replaced, freed on another device, freed twice and reused slots.
import { compareCodePoints, MEMORY_CATEGORIES, type MemoryEvent } from "@cg/schema";
import fc from "fast-check";
import { expect, test } from "vitest";
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

const eventArbitrary = fc.record({
  action: fc.constantFrom("alloc" as const, "free" as const),
  tensor: fc.constantFrom("a", "b", "c", "é"),
  bytes: fc.nat({ max: 64 }),
  device: fc.constantFrom("cpu", "cuda:0"),
  span: fc.constantFrom("s1", "s2"),
  op: fc.option(fc.constantFrom("matmul", "add"), { nil: undefined }),
  category: fc.constantFrom(...MEMORY_CATEGORIES),
});

test("the peak breakdown equals the one of a map of allocation records", () => {
  fc.assert(
    fc.property(fc.array(eventArbitrary, { maxLength: 60 }), fc.boolean(), (drawn, improved) => {
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
    }),
    { numRuns: 500 },
  );
});

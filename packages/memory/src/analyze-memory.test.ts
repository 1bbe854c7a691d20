import { type MemoryCategory, type MemoryEvent, type U64, U64_MAX } from "@cg/schema";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { analyzeMemory } from "./analyze-memory.js";
import { MemoryInputError } from "./memory-input-error.js";
import { MemoryTimeline } from "./memory-timeline.js";

function memory(
  action: "alloc" | "free",
  tensorId: string,
  bytes: U64,
  timestamp: U64,
  extra: Partial<MemoryEvent> = {},
): MemoryEvent {
  return {
    kind: "memory",
    timestamp_ns: timestamp,
    tensor_id: tensorId,
    span_id: "s1",
    device: "cpu",
    bytes,
    action,
    shape: [],
    dtype: "u8",
    category: "other",
    ...extra,
  };
}

describe("spec Appendix D and §11 basics", () => {
  it("alloc 40000 at 500, free at 1000: peak 40000, 1 alloc, 1 free, one breakdown entry", () => {
    const result = analyzeMemory({
      memory: [memory("alloc", "t", 40000, 500), memory("free", "t", 40000, 1000)],
    });
    expect(result.peak_bytes).toBe(40000);
    expect(result.peak_timestamp_ns).toBe(500);
    expect(result.alloc_count).toBe(1);
    expect(result.free_count).toBe(1);
    expect(result.peak_breakdown).toEqual([
      { tensor_id: "t", device: "cpu", bytes: 40000, category: "other", span_id: "s1", timestamp_ns: 500 },
    ]);
    expect(result.timeline.map((point) => point.live_bytes)).toEqual([40000, 0]);
  });

  it("without memory events: peak 0, empty timeline, empty peak device", () => {
    const result = analyzeMemory({
      memory: [],
      device_memory: [{ device: "cuda:0", used_bytes: 1, free_bytes: 2 }],
    });
    expect(result).toEqual({
      alloc_count: 0,
      free_count: 0,
      total_alloc_bytes: 0,
      peak_bytes: 0,
      peak_timestamp_ns: 0,
      peak_device: "",
      peak_by_category: {},
      autograd_retained_bytes: 0,
      peak_breakdown: [],
      by_device: [],
      timeline: [],
    });
  });

  it("sorts by timestamp, then alloc before free, then tensor id; stable beyond that", () => {
    const events = [
      memory("free", "a", 10, 5),
      memory("alloc", "b", 20, 5),
      memory("alloc", "a", 10, 5),
      memory("alloc", "z", 1, 1),
    ];
    const result = analyzeMemory({ memory: events });
    expect(result.timeline.map((point) => point.live_bytes)).toEqual([1, 11, 31, 21]);
    expect(result.peak_bytes).toBe(31);
    expect(result.peak_breakdown.map((entry) => entry.tensor_id)).toEqual(["b", "a", "z"]);
  });

  it("orders tensor ids by code point, not UTF-16 unit", () => {
    const result = analyzeMemory({
      memory: [memory("alloc", "\u{1F600}", 8, 1), memory("alloc", "\uFF21", 8, 1)],
    });
    // U+FF21 < U+1F600 by code point although its UTF-16 unit is larger than the high surrogate.
    expect(result.timeline.map((point) => point.live_bytes)).toEqual([8, 16]);
    expect(result.peak_breakdown.map((entry) => entry.tensor_id)).toEqual(["\uFF21", "\u{1F600}"]);
  });

  it("keeps categories that returned to 0 in the map, keys in byte order", () => {
    const result = analyzeMemory({
      memory: [
        memory("alloc", "p", 100, 1, { category: "parameter" }),
        memory("alloc", "g", 5, 2, { category: "gradient" }),
        memory("free", "g", 5, 3),
        memory("alloc", "a", 200, 4, { category: "activation" }),
      ],
    });
    expect(result.peak_by_category).toEqual({ activation: 200, gradient: 0, parameter: 100 });
    expect(Object.keys(result.peak_by_category)).toEqual(["activation", "gradient", "parameter"]);
    expect(result.timeline[2]?.by_category).toEqual({ gradient: 0, parameter: 100 });
  });

  it("does not add devices together for the global peak", () => {
    const result = analyzeMemory({
      memory: [
        memory("alloc", "a", 100, 1, { device: "cuda:1" }),
        memory("alloc", "b", 60, 2, { device: "cuda:0" }),
        memory("alloc", "c", 60, 3, { device: "cuda:0" }),
      ],
      device_memory: [
        { device: "cuda:0", used_bytes: 10, free_bytes: 990 },
        { device: "cuda:0", used_bytes: 500, free_bytes: 400 },
        { device: "cuda:9", used_bytes: 1, free_bytes: 1 },
      ],
    });
    expect(result.peak_bytes).toBe(120);
    expect(result.peak_device).toBe("cuda:0");
    expect(result.peak_timestamp_ns).toBe(3);
    // The breakdown lists live allocations of every device.
    expect(result.peak_breakdown.map((entry) => entry.tensor_id)).toEqual(["a", "b", "c"]);
    expect(result.by_device).toEqual([
      {
        device: "cuda:0",
        capacity_bytes: 1000,
        peak_bytes: 120,
        peak_timestamp_ns: 3,
        alloc_count: 2,
        free_count: 0,
      },
      {
        device: "cuda:1",
        capacity_bytes: 0,
        peak_bytes: 100,
        peak_timestamp_ns: 1,
        alloc_count: 1,
        free_count: 0,
      },
    ]);
  });

  it("a strictly greater live total replaces the peak; an equal one does not", () => {
    const result = analyzeMemory({
      memory: [memory("alloc", "a", 50, 1), memory("free", "a", 50, 2), memory("alloc", "b", 50, 3)],
    });
    expect(result.peak_timestamp_ns).toBe(1);
    expect(result.peak_breakdown.map((entry) => entry.tensor_id)).toEqual(["a"]);
  });

  it("the breakdown is the live set at the peak, including allocations freed or replaced later", () => {
    const result = analyzeMemory({
      memory: [
        memory("alloc", "a", 10, 1),
        memory("alloc", "b", 30, 2, { op_name: "matmul" }),
        memory("free", "b", 30, 3),
        memory("alloc", "a", 5, 4),
        memory("alloc", "c", 1, 5),
      ],
    });
    expect(result.peak_bytes).toBe(40);
    expect(result.peak_breakdown).toEqual([
      {
        tensor_id: "b",
        device: "cpu",
        bytes: 30,
        category: "other",
        span_id: "s1",
        op_name: "matmul",
        timestamp_ns: 2,
      },
      { tensor_id: "a", device: "cpu", bytes: 10, category: "other", span_id: "s1", timestamp_ns: 1 },
    ]);
  });

  it("a free of an unknown tensor subtracts its own bytes, saturating at 0", () => {
    const result = analyzeMemory({
      memory: [memory("alloc", "a", 10, 1), memory("free", "ghost", 4, 2), memory("free", "ghost2", 100, 3)],
    });
    expect(result.timeline.map((point) => point.live_bytes)).toEqual([10, 6, 0]);
    expect(result.free_count).toBe(2);
  });

  it("re-allocating a live tensor id replaces the allocation but keeps both sizes live (reference)", () => {
    const result = analyzeMemory({
      memory: [memory("alloc", "t", 100, 1), memory("alloc", "t", 50, 2), memory("free", "t", 999, 3)],
    });
    expect(result.timeline.map((point) => point.live_bytes)).toEqual([100, 150, 100]);
    expect(result.total_alloc_bytes).toBe(150);
  });

  it("sums saturate at 2^64 - 1 exactly", () => {
    const result = analyzeMemory({
      memory: [
        memory("alloc", "a", U64_MAX - 1n, 1),
        memory("alloc", "b", 7, 2),
        memory("alloc", "c", 2n ** 60n, U64_MAX),
      ],
      device_memory: [{ device: "cpu", used_bytes: U64_MAX, free_bytes: 1 }],
    });
    expect(result.total_alloc_bytes).toBe(U64_MAX);
    expect(result.peak_bytes).toBe(U64_MAX);
    expect(result.peak_timestamp_ns).toBe(2);
    expect(result.by_device[0]?.capacity_bytes).toBe(U64_MAX);
  });
});

describe("autograd retention (§11 step 7)", () => {
  const spans = [
    { id: "fwd", step: "forward" as const },
    { id: "bwd", step: "backward" as const },
    { id: "inner" },
  ];

  it.each([
    {
      title: "is the device's activation bytes right after the first event in a backward span",
      events: [
        memory("alloc", "x", 300, 1, { span_id: "fwd", category: "activation" }),
        memory("alloc", "y", 20, 2, { span_id: "fwd", category: "activation" }),
        memory("free", "y", 20, 3, { span_id: "bwd" }),
        memory("free", "x", 300, 4, { span_id: "bwd" }),
      ],
      retained: 300,
    },
    {
      title: "does not inherit steps from parent spans",
      events: [
        memory("alloc", "x", 300, 1, { span_id: "fwd", category: "activation" }),
        memory("free", "x", 300, 2, { span_id: "inner" }),
      ],
      retained: 0,
    },
    {
      title: "takes the backward span's device, and 0 when that device has no activation entry",
      events: [
        memory("alloc", "x", 300, 1, { span_id: "fwd", category: "activation" }),
        memory("alloc", "g", 8, 2, { span_id: "bwd", category: "gradient", device: "cuda:0" }),
      ],
      retained: 0,
    },
  ])("$title", ({ events, retained }) => {
    expect(analyzeMemory({ spans, memory: events }).autograd_retained_bytes).toBe(retained);
  });
});

describe("compat modes (§17 Q4/Q5)", () => {
  const crossDevice = [
    memory("alloc", "t", 100, 1, { device: "cuda:0", category: "activation" }),
    memory("alloc", "u", 40, 2, { device: "cuda:1", category: "activation" }),
    memory("free", "t", 100, 3, { device: "cuda:1" }),
  ];

  it("reference: lifetimes keyed by tensor id; a free subtracts from the free event's device", () => {
    const result = analyzeMemory({
      memory: crossDevice,
      device_memory: [{ device: "cuda:1", used_bytes: 0, free_bytes: 1000 }],
    });
    expect(result.timeline.map((point) => [point.device, point.live_bytes])).toEqual([
      ["cuda:0", 100],
      ["cuda:1", 40],
      ["cuda:1", 0],
    ]);
    expect(result.timeline.every((point) => point.free_bytes === 0)).toBe(true);
  });

  it("improved: lifetimes keyed by (device, tensor id); free_bytes = capacity - live", () => {
    const result = analyzeMemory(
      { memory: crossDevice, device_memory: [{ device: "cuda:1", used_bytes: 0, free_bytes: 1000 }] },
      { compat: "improved" },
    );
    expect(result.timeline.map((point) => [point.device, point.live_bytes, point.free_bytes])).toEqual([
      ["cuda:0", 100, 0],
      ["cuda:1", 40, 960],
      ["cuda:1", 0, 1000],
    ]);
  });
});

describe("a free on another device (spec §11 step 4)", () => {
  // t1 lives on cuda:0 and is freed on cuda:1; cuda:1 never held an activation.
  const events = [
    memory("alloc", "t1", 100, 10, { device: "cuda:0", category: "activation" }),
    memory("free", "t1", 100, 20, { device: "cuda:1", category: "activation" }),
    memory("alloc", "t2", 500, 30, { device: "cuda:1", category: "gradient" }),
    memory("free", "t2", 500, 40, { device: "cuda:1", category: "gradient" }),
  ];

  it("creates no category entry on the free event's device", () => {
    const result = analyzeMemory({ memory: events });
    expect(result.timeline.map((point) => point.by_category)).toEqual([
      { activation: 100 },
      {},
      { gradient: 500 },
      { gradient: 0 },
    ]);
    expect(result.peak_by_category).toEqual({ gradient: 500 });
    expect(result.peak_device).toBe("cuda:1");
  });

  it("gives the same peak categories when fed incrementally without a timeline", () => {
    const timeline = new MemoryTimeline({ timeline: false });
    timeline.push(events[0] as MemoryEvent);
    timeline.push(events[1] as MemoryEvent);
    expect(timeline.snapshot().peak_by_category).toEqual({ activation: 100 });
    timeline.push(events[2] as MemoryEvent);
    timeline.push(events[3] as MemoryEvent);
    expect(timeline.result().peak_by_category).toEqual({ gradient: 500 });
  });

  it("still reduces an entry the free event's device already has", () => {
    const result = analyzeMemory({
      memory: [
        memory("alloc", "a", 100, 1, { device: "cuda:0", category: "activation" }),
        memory("alloc", "b", 30, 2, { device: "cuda:1", category: "activation" }),
        memory("free", "a", 100, 3, { device: "cuda:1" }),
      ],
    });
    expect(result.timeline.map((point) => point.by_category)).toEqual([
      { activation: 100 },
      { activation: 30 },
      { activation: 0 },
    ]);
  });

  it("never shows a category on a device that allocated none of it (random event sequences)", () => {
    const categories: MemoryCategory[] = ["activation", "gradient", "optimizer", "other", "parameter"];
    const event = fc.record({
      action: fc.constantFrom("alloc" as const, "free" as const),
      tensor: fc.constantFrom("a", "b", "c", "d"),
      bytes: fc.nat({ max: 1000 }),
      device: fc.constantFrom("cpu", "cuda:0", "cuda:1"),
      category: fc.constantFrom(...categories),
    });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), (drawn) => {
        const events = drawn.map((item, index) =>
          memory(item.action, item.tensor, item.bytes, index, {
            device: item.device,
            category: item.category,
          }),
        );
        const result = analyzeMemory({ memory: events });
        const allocated = new Map<string, Set<string>>();
        result.timeline.forEach((point, index) => {
          const source = events[index] as MemoryEvent;
          if (source.action === "alloc") {
            const seen = allocated.get(source.device) ?? new Set<string>();
            seen.add(source.category);
            allocated.set(source.device, seen);
          }
          for (const key of Object.keys(point.by_category)) {
            expect(allocated.get(point.device)?.has(key)).toBe(true);
          }
        });
      }),
    );
  });
});

describe("MemoryTimeline", () => {
  it("can omit the timeline points and gives the same summary", () => {
    const events = [memory("alloc", "a", 10, 1), memory("alloc", "b", 20, 2), memory("free", "a", 10, 3)];
    const streaming = new MemoryTimeline({ timeline: false, spanStep: () => undefined });
    for (const event of events) streaming.push(event);
    const { timeline, ...summary } = streaming.result();
    expect(timeline).toEqual([]);
    const { timeline: full, ...expected } = analyzeMemory({ memory: events });
    expect(full).toHaveLength(3);
    expect(summary).toEqual(expected);
  });

  it("hands every point to onPoint, in the order of the timeline it replaces", () => {
    const events = [memory("alloc", "a", 10, 1), memory("alloc", "b", 20, 2), memory("free", "a", 10, 3)];
    const seen: unknown[] = [];
    const streaming = new MemoryTimeline({ timeline: false, onPoint: (point) => seen.push(point) });
    for (const event of events) streaming.push(event);
    expect(streaming.result().timeline).toEqual([]);
    expect(seen).toEqual(analyzeMemory({ memory: events }).timeline);
  });

  it("snapshots do not change when pushing continues", () => {
    const timeline = new MemoryTimeline();
    timeline.push(memory("alloc", "a", 10, 1));
    const first = timeline.snapshot();
    timeline.push(memory("alloc", "b", 20, 2));
    expect(first.peak_bytes).toBe(10);
    expect(first.timeline).toHaveLength(1);
    expect(timeline.snapshot().peak_bytes).toBe(30);
  });

  it("rejects malformed events with the event index", () => {
    const timeline = new MemoryTimeline();
    timeline.push(memory("alloc", "a", 10, 1));
    expect(() => timeline.push(memory("alloc", "b", -1, 2))).toThrow(/memory event #1: bytes/);
    expect(() => timeline.push(memory("alloc", "b", 1, 1.5))).toThrow(MemoryInputError);
    expect(() =>
      timeline.push({ ...memory("alloc", "b", 1, 3), category: "weights" as MemoryCategory }),
    ).toThrow(/category must be one of/);
    expect(() => timeline.push({ ...memory("alloc", "b", 1, 3), action: "leak" as "alloc" })).toThrow(
      /action/,
    );
  });
});

describe("properties", () => {
  const categories: MemoryCategory[] = ["activation", "gradient", "optimizer", "other", "parameter"];
  const eventArbitrary = (devices: string[]) =>
    fc
      .record({
        action: fc.constantFrom<"alloc" | "free">("alloc", "alloc", "free"),
        tensor: fc.integer({ min: 0, max: 12 }),
        bytes: fc.oneof(
          fc.integer({ min: 0, max: 1 << 20 }),
          fc.constantFrom<U64>(U64_MAX, 2n ** 63n, Number.MAX_SAFE_INTEGER),
        ),
        timestamp: fc.integer({ min: 0, max: 50 }),
        device: fc.constantFrom(...devices),
        category: fc.constantFrom(...categories),
      })
      .map(({ action, tensor, bytes, timestamp, device, category }) =>
        memory(action, `t${tensor}`, bytes, timestamp, { device, category }),
      );

  it("live bytes are never negative and never exceed 2^64 - 1; the peak bounds every point", () => {
    fc.assert(
      fc.property(fc.array(eventArbitrary(["cpu", "cuda:0"]), { maxLength: 60 }), (events) => {
        const result = analyzeMemory({ memory: events });
        for (const point of result.timeline) {
          const live = BigInt(point.live_bytes);
          expect(live >= 0n && live <= U64_MAX).toBe(true);
          expect(live <= BigInt(result.peak_bytes)).toBe(true);
          for (const bytes of Object.values(point.by_category)) expect(BigInt(bytes) >= 0n).toBe(true);
        }
      }),
    );
  });

  it("agrees with an exact bigint model on one device", () => {
    fc.assert(
      fc.property(fc.array(eventArbitrary(["cpu"]), { maxLength: 60 }), (events) => {
        const result = analyzeMemory({ memory: events });
        const sorted = [...events].sort(
          (a, b) =>
            Number(BigInt(a.timestamp_ns) - BigInt(b.timestamp_ns)) ||
            (a.action === b.action ? 0 : a.action === "alloc" ? -1 : 1) ||
            (a.tensor_id < b.tensor_id ? -1 : a.tensor_id > b.tensor_id ? 1 : 0),
        );
        const liveMap = new Map<string, bigint>();
        let live = 0n;
        let peak = 0n;
        let total = 0n;
        for (const event of sorted) {
          const bytes = BigInt(event.bytes);
          if (event.action === "alloc") {
            total = total + bytes > U64_MAX ? U64_MAX : total + bytes;
            live = live + bytes > U64_MAX ? U64_MAX : live + bytes;
            liveMap.set(event.tensor_id, bytes);
          } else {
            const allocated = liveMap.get(event.tensor_id);
            liveMap.delete(event.tensor_id);
            const subtract = allocated ?? bytes;
            live = live > subtract ? live - subtract : 0n;
          }
          if (live > peak) peak = live;
        }
        expect(BigInt(result.total_alloc_bytes)).toBe(total);
        expect(BigInt(result.peak_bytes)).toBe(peak);
        expect(BigInt(result.timeline.at(-1)?.live_bytes ?? 0)).toBe(live);
      }),
    );
  });

  it("breakdown bytes sum to the peak when every allocation is on one device without unknown frees", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ tensor: fc.integer({ min: 0, max: 30 }), bytes: fc.integer({ min: 1, max: 1 << 30 }) }),
          { maxLength: 40 },
        ),
        fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 20 }),
        (allocations, frees) => {
          // Unique tensor ids per allocation and frees only of allocated ids keep live = sum of the live set.
          const events: MemoryEvent[] = allocations.map((entry, index) =>
            memory("alloc", `t${index}`, entry.bytes, entry.tensor),
          );
          for (const [position, target] of frees.entries()) {
            const allocation = events[target];
            if (allocation !== undefined && allocation.action === "alloc") {
              events.push(memory("free", allocation.tensor_id, allocation.bytes, 31 + position));
            }
          }
          const result = analyzeMemory({ memory: events });
          const sum = result.peak_breakdown.reduce((total, entry) => total + BigInt(entry.bytes), 0n);
          expect(sum).toBe(BigInt(result.peak_bytes));
          const order = result.peak_breakdown.map((entry) => Number(entry.bytes));
          expect(order).toEqual([...order].sort((a, b) => b - a));
        },
      ),
    );
  });

  it("the streaming timeline without points matches analyzeMemory on sorted input", () => {
    fc.assert(
      fc.property(fc.array(eventArbitrary(["a", "b", "c"]), { maxLength: 60 }), (events) => {
        const full = analyzeMemory({ memory: events });
        const streaming = new MemoryTimeline({ timeline: false });
        expect(full.timeline).toHaveLength(events.length);
        for (const event of [...events].sort((left, right) => compareForTest(left, right)))
          streaming.push(event);
        const { timeline: _full, ...expected } = full;
        const { timeline: _none, ...actual } = streaming.result();
        expect(actual).toEqual(expected);
      }),
    );
  });
});

function compareForTest(left: MemoryEvent, right: MemoryEvent): number {
  const time = BigInt(left.timestamp_ns) - BigInt(right.timestamp_ns);
  if (time !== 0n) return time < 0n ? -1 : 1;
  if (left.action !== right.action) return left.action === "alloc" ? -1 : 1;
  return left.tensor_id < right.tensor_id ? -1 : left.tensor_id > right.tensor_id ? 1 : 0;
}

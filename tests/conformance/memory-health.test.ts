// Memory analysis (§11) versus health (§12.1) and the streaming summary: the places where the spec
// makes them disagree, peak bookkeeping, autograd retention and capacity.
import { analyzeMemory } from "@cg/memory";
import { analyzeHealth, parseTraceText, summarize, summarizeStream, type TraceDocument } from "@cg/parser";
import { describe, expect, it } from "vitest";
import { jsonl, META } from "./helpers.ts";

const META_TRAIN = META.replace('"phase":"infer"', '"phase":"train"');
const U64_MAX = 18446744073709551615n;

interface Mem {
  t: number | string;
  id: string;
  action: "alloc" | "free";
  bytes: number | string;
  device?: string;
  span?: string;
  category?: string;
}

function memoryLine(m: Mem): string {
  return `{"kind":"memory","timestamp_ns":${m.t},"tensor_id":${JSON.stringify(m.id)},"span_id":"${m.span ?? "s1"}","device":"${m.device ?? "cpu"}","bytes":${m.bytes},"action":"${m.action}","dtype":"u8","category":"${m.category ?? "activation"}"}`;
}

function trace(memory: Mem[], extra: string[] = [], spans: string[] = []): string {
  return jsonl(
    META_TRAIN,
    '{"kind":"span_start","id":"s1","name":"root","start_ns":0,"span_kind":"function","measured":true}',
    ...spans,
    ...memory.map(memoryLine),
    ...extra,
    '{"kind":"span_end","id":"s1","duration_ns":1000000}',
  );
}

function codes(document: TraceDocument, severity: "error" | "warning"): string[] {
  return analyzeHealth(document)
    .issues.filter((i) => i.severity === severity)
    .map((i) => i.code);
}

async function streamAgrees(text: string, document: TraceDocument): Promise<void> {
  const stream = await summarizeStream({ text });
  expect(stream.exact).toBe(true);
  const { timeline: _timeline, ...analysis } = analyzeMemory(document);
  const { timeline: _streamTimeline, ...streamAnalysis } = stream.memory;
  expect(streamAnalysis).toEqual(analysis);
  expect(stream.health).toEqual(analyzeHealth(document));
  const { self_times: _selfTimes, ...summary } = summarize(document);
  expect(stream.summary).toEqual(summary);
}

describe("§12.1 vs §11: free before alloc at the same timestamp", () => {
  const text = trace([
    { t: 10, id: "t", action: "free", bytes: 64 },
    { t: 10, id: "t", action: "alloc", bytes: 64 },
  ]);
  it("health reports unpaired_free and retained_allocations; the analysis pairs them", async () => {
    const document = parseTraceText(text);
    const health = analyzeHealth(document);
    expect(codes(document, "error")).toEqual(["unpaired_free"]);
    expect(health.issues.find((i) => i.code === "unpaired_free")?.message).toBe(
      "tensor `t` was freed without a live allocation",
    );
    expect(health.issues.find((i) => i.code === "retained_allocations")?.message).toBe(
      "1 explicit allocations remained live at measurement end",
    );
    const analysis = analyzeMemory(document);
    expect(analysis).toMatchObject({ alloc_count: 1, free_count: 1, peak_bytes: 64, peak_timestamp_ns: 10 });
    expect(analysis.timeline.map((p) => p.live_bytes)).toEqual([64, 0]);
    await streamAgrees(text, document);
  });

  it("health pairs by (device, tensor_id); the analysis by tensor_id only (Q5)", async () => {
    const text2 = trace([
      { t: 1, id: "t", action: "alloc", bytes: 100, device: "cuda:0" },
      { t: 2, id: "t", action: "alloc", bytes: 30, device: "cuda:1" },
      { t: 3, id: "t", action: "free", bytes: 100, device: "cuda:0" },
    ]);
    const document = parseTraceText(text2);
    // health: cuda:0/t paired, cuda:1/t still live → only the retained warning
    expect(codes(document, "error")).toEqual([]);
    expect(codes(document, "warning")).toContain("retained_allocations");
    const analysis = analyzeMemory(document);
    // analysis: the second alloc replaced the record; the free subtracts 30 (allocation's bytes) from cuda:0
    const byDevice = Object.fromEntries(analysis.by_device.map((d) => [d.device, d.peak_bytes]));
    expect(byDevice).toEqual({ "cuda:0": 100, "cuda:1": 30 });
    expect(analysis.timeline.map((p) => [p.device, p.live_bytes])).toEqual([
      ["cuda:0", 100],
      ["cuda:1", 30],
      ["cuda:0", 70],
    ]);
    expect(analysis.total_alloc_bytes).toBe(130);
    await streamAgrees(text2, document);
  });

  it("health sorts by timestamp only (stable), so an alloc line after a later-timestamped free still pairs", () => {
    const document = parseTraceText(
      trace([
        { t: 20, id: "t", action: "free", bytes: 8 },
        { t: 5, id: "t", action: "alloc", bytes: 8 },
      ]),
    );
    expect(codes(document, "error")).toEqual([]);
    expect(codes(document, "warning")).not.toContain("retained_allocations");
  });

  it("a second alloc of a live (device, id) is duplicate_allocation", () => {
    const document = parseTraceText(
      trace([
        { t: 1, id: "t2", action: "alloc", bytes: 8, device: "cuda:0" },
        { t: 2, id: "t2", action: "alloc", bytes: 8, device: "cuda:0" },
      ]),
    );
    expect(codes(document, "error")).toEqual(["duplicate_allocation"]);
    expect(codes(document, "warning")[0]).toBe("retained_allocations");
  });
});

describe("§11 peaks and breakdown", () => {
  it("peak_breakdown: bytes descending, then tensor_id in code point order; every device included", async () => {
    const ids = ["😀", "～", "9", "10", "b", "a"];
    const text = trace([
      ...ids.map((id, i) => ({ t: i + 1, id, action: "alloc" as const, bytes: 16 })),
      { t: 7, id: "big", action: "alloc", bytes: 32, device: "cuda:0" },
      { t: 8, id: "z", action: "alloc", bytes: 1 },
    ]);
    const document = parseTraceText(text);
    const analysis = analyzeMemory(document);
    expect(analysis.peak_device).toBe("cpu");
    expect(analysis.peak_bytes).toBe(97);
    expect(analysis.peak_breakdown.map((entry) => entry.tensor_id)).toEqual([
      "big",
      "10",
      "9",
      "a",
      "b",
      "～",
      "😀",
      "z",
    ]);
    await streamAgrees(text, document);
  });

  it("events at the same timestamp and action are ordered by tensor_id in code point order (～ before 😀)", async () => {
    // Both devices reach 100 at t=10; whichever is processed first holds the peak (strictly greater replaces).
    const text = trace([
      { t: 10, id: "😀", action: "alloc", bytes: 100, device: "b" },
      { t: 10, id: "～", action: "alloc", bytes: 100, device: "a" },
    ]);
    const document = parseTraceText(text);
    const analysis = analyzeMemory(document);
    expect(analysis.peak_device).toBe("a");
    expect(analysis.timeline.map((p) => p.device)).toEqual(["a", "b"]);
    expect(analysis.peak_breakdown.map((entry) => entry.tensor_id)).toEqual(["～"]);
    await streamAgrees(text, document);
  });

  it("the peak is one device's live total, devices are not added; peak_by_category keeps zeroed entries", async () => {
    const text = trace([
      { t: 1, id: "p", action: "alloc", bytes: 50, category: "parameter" },
      { t: 2, id: "q", action: "alloc", bytes: 60, device: "cuda:0" },
      { t: 3, id: "p", action: "free", bytes: 50 },
      { t: 4, id: "g", action: "alloc", bytes: 70, category: "gradient" },
    ]);
    const document = parseTraceText(text);
    const analysis = analyzeMemory(document);
    expect(analysis).toMatchObject({ peak_bytes: 70, peak_device: "cpu", peak_timestamp_ns: 4 });
    expect({ ...analysis.peak_by_category }).toEqual({ gradient: 70, parameter: 0 });
    expect(analysis.peak_breakdown.map((entry) => entry.tensor_id)).toEqual(["g", "q"]);
    expect(Object.keys(analysis.timeline[2]?.by_category ?? {})).toEqual(["parameter"]);
    await streamAgrees(text, document);
  });

  it("a free of an unknown tensor subtracts its own bytes, saturating at 0", () => {
    const analysis = analyzeMemory(
      parseTraceText(
        trace([
          { t: 1, id: "a", action: "alloc", bytes: 10 },
          { t: 2, id: "ghost", action: "free", bytes: 4 },
          { t: 3, id: "ghost2", action: "free", bytes: 100 },
        ]),
      ),
    );
    expect(analysis.timeline.map((p) => p.live_bytes)).toEqual([10, 6, 0]);
    expect(analysis.timeline.every((p) => p.free_bytes === 0 && p.heap_bytes === p.live_bytes)).toBe(true);
  });

  it("sums saturate at 2^64-1 exactly", async () => {
    const text = trace([
      { t: 1, id: "a", action: "alloc", bytes: U64_MAX.toString() },
      { t: 2, id: "b", action: "alloc", bytes: 5 },
      { t: "18446744073709551615", id: "c", action: "alloc", bytes: 1, device: "d" },
    ]);
    const document = parseTraceText(text);
    const analysis = analyzeMemory(document);
    expect(analysis.total_alloc_bytes).toBe(U64_MAX);
    expect(analysis.peak_bytes).toBe(U64_MAX);
    expect(analysis.peak_timestamp_ns).toBe(1);
    expect(analysis.by_device.find((d) => d.device === "d")?.peak_timestamp_ns).toBe(U64_MAX);
    expect(summarize(document).peak_bytes).toBe(U64_MAX);
    await streamAgrees(text, document);
  });
});

describe("§11.7 autograd retention", () => {
  const spans = [
    '{"kind":"span_start","id":"f","parent_id":"s1","name":"fw","start_ns":0,"span_kind":"function","step":"forward"}',
    '{"kind":"span_start","id":"b","parent_id":"s1","name":"bw","start_ns":10,"span_kind":"function","step":"backward"}',
    '{"kind":"span_start","id":"bn","parent_id":"b","name":"inner","start_ns":10,"span_kind":"op"}',
    '{"kind":"span_end","id":"bn","duration_ns":5}',
    '{"kind":"span_end","id":"b","duration_ns":50}',
    '{"kind":"span_end","id":"f","duration_ns":10}',
  ];
  it("counts only spans whose own step is backward (not inherited); activation bytes of the event's device", async () => {
    const text = trace(
      [
        { t: 1, id: "x", action: "alloc", bytes: 100, span: "f", category: "activation" },
        { t: 2, id: "y", action: "alloc", bytes: 40, span: "f", category: "activation", device: "cuda:0" },
        { t: 3, id: "z", action: "alloc", bytes: 7, span: "bn", category: "activation" },
        { t: 4, id: "x", action: "free", bytes: 100, span: "b", category: "activation" },
        { t: 5, id: "w", action: "alloc", bytes: 1, span: "b", category: "activation" },
      ],
      [],
      spans,
    );
    const document = parseTraceText(text);
    // first event in a span with its own backward step is the free at t=4: cpu activation 107 - 100 = 7
    expect(analyzeMemory(document).autograd_retained_bytes).toBe(7);
    await streamAgrees(text, document);
  });

  it("is 0 when no event is in a backward span, and uses the device of that first event", () => {
    const none = parseTraceText(
      trace([{ t: 1, id: "x", action: "alloc", bytes: 100, span: "bn" }], [], spans),
    );
    expect(analyzeMemory(none).autograd_retained_bytes).toBe(0);
    const other = parseTraceText(
      trace(
        [
          { t: 1, id: "x", action: "alloc", bytes: 100, span: "f" },
          { t: 2, id: "g", action: "alloc", bytes: 3, span: "b", device: "cuda:0", category: "gradient" },
        ],
        [],
        spans,
      ),
    );
    expect(analyzeMemory(other).autograd_retained_bytes).toBe(0);
  });
});

describe("§11.8 capacity", () => {
  it("is the max over a device's samples of used + free (saturating); reserved is ignored; only devices with memory events are listed", async () => {
    const text = trace(
      [
        { t: 1, id: "a", action: "alloc", bytes: 1, device: "cuda:0" },
        { t: 1, id: "b", action: "alloc", bytes: 1, device: "cuda:1" },
        { t: 1, id: "c", action: "alloc", bytes: 1, device: "cpu" },
      ],
      [
        '{"kind":"device_memory","timestamp_ns":1,"device":"cuda:0","used_bytes":100,"free_bytes":900,"reserved_bytes":100000}',
        '{"kind":"device_memory","timestamp_ns":2,"device":"cuda:0","used_bytes":500,"free_bytes":400}',
        '{"kind":"device_memory","timestamp_ns":3,"device":"cuda:1","used_bytes":18446744073709551615,"free_bytes":5}',
        '{"kind":"device_memory","timestamp_ns":3,"device":"cuda:9","used_bytes":1,"free_bytes":5}',
      ],
    );
    const document = parseTraceText(text);
    const byDevice = analyzeMemory(document).by_device;
    expect(byDevice.map((d) => [d.device, d.capacity_bytes])).toEqual([
      ["cpu", 0],
      ["cuda:0", 1000],
      ["cuda:1", U64_MAX],
    ]);
    await streamAgrees(text, document);
  });
});

// Spec Appendix D: every behaviour the reference pins with its own tests, checked across packages.
import { analyzeMemory } from "@cg/memory";
import {
  analyzeHealth,
  compareTraces,
  parseTraceText,
  type SpanRecord,
  serializeDocument,
  spanCosts,
  summarize,
  type TraceDocument,
} from "@cg/parser";
import { ProfileRun, TraceSession } from "@cg/writer";
import { describe, expect, it } from "vitest";
import { jsonl, META, parseError } from "./helpers.ts";

const META_TRAIN = META.replace('"phase":"infer"', '"phase":"train"');

function doc(...lines: string[]): TraceDocument {
  return parseTraceText(jsonl(...lines));
}

function span(id: string, fields: Partial<SpanRecord> = {}): SpanRecord {
  return {
    id,
    name: id,
    kind: "function",
    measured: false,
    start_ns: 0,
    closed: true,
    duration_ns: 0,
    ...fields,
  };
}

function handBuilt(spans: SpanRecord[]): TraceDocument {
  const base = doc(
    META,
    '{"kind":"span_start","id":"x","name":"x","start_ns":0,"span_kind":"function","measured":true}',
    '{"kind":"span_end","id":"x"}',
  );
  return { ...base, spans };
}

function errorCodes(document: TraceDocument, compat?: "reference"): string[] {
  return analyzeHealth(document, compat === undefined ? {} : { compat })
    .issues.filter((issue) => issue.severity === "error")
    .map((issue) => issue.code);
}

describe("Appendix D: document building", () => {
  const lines = [
    META,
    '{"kind":"span_start","id":"span-root","name":"root","start_ns":0,"span_kind":"function","measured":true}',
    '{"kind":"span_start","id":"span-op","parent_id":"span-root","name":"matmul","start_ns":10,"span_kind":"op","measured":false}',
    '{"kind":"op","span_id":"span-op","op_name":"matmul","inputs":["a","b"],"output":"c","shape":[32,32],"dtype":"f32","device":"cpu","duration_ns":100,"timestamp_ns":20}',
    '{"kind":"memory","timestamp_ns":20,"tensor_id":"c","span_id":"span-op","op_name":"matmul","device":"cpu","bytes":4096,"action":"alloc","shape":[32,32],"dtype":"f32","category":"activation"}',
    '{"kind":"edge","from_span":"span-root","to_span":"span-op","duration_ns":5}',
    '{"kind":"gradient","event_id":"gradient-1","root":"vb","key":"encoder.weight","state":"present","norm":0.42}',
    '{"kind":"span_end","id":"span-op","duration_ns":1200}',
    '{"kind":"span_end","id":"span-root","duration_ns":2000}',
  ];

  it("builds the pinned document and summary", () => {
    const document = doc(...lines);
    expect(document.spans.map((s) => [s.id, s.closed])).toEqual([
      ["span-op", true],
      ["span-root", true],
    ]);
    expect(document.ops[0]?.storage_bytes).toBe(4096);
    expect([document.memory.length, document.edges.length, document.gradients.length]).toEqual([1, 1, 1]);
    const summary = summarize(document);
    expect(summary).toMatchObject({
      op_count: 1,
      total_ns: 2000,
      span_count: 2,
      root_span_count: 1,
      max_depth: 1,
      alloc_count: 1,
      free_count: 0,
      peak_bytes: 4096,
    });
  });

  it("writing the document and reading it back gives an equal document (§9.3)", () => {
    const document = doc(...lines);
    const again = parseTraceText(serializeDocument(document));
    expect(again).toEqual(document);
    // §4.5 order: spans by id, start directly followed by its end, then ops, …, edges
    const kinds = serializeDocument(document)
      .trimEnd()
      .split("\n")
      .map((line) => (JSON.parse(line) as { kind: string }).kind);
    expect(kinds).toEqual([
      "meta",
      "span_start",
      "span_end",
      "span_start",
      "span_end",
      "op",
      "memory",
      "gradient",
      "edge",
    ]);
    expect(serializeDocument(document)).toContain('"storage_bytes":4096');
  });

  it("re-serialisation round trip holds for every valid fixture-like shape incl. unclosed spans and big numbers", () => {
    const document = doc(
      META_TRAIN.replace('"tags":{}', '"tags":{"9":"b","10":"a","😀":"x","～":"y"},"candle_version":"0.8.0"'),
      '{"kind":"span_start","id":"s10","name":"r","start_ns":0,"span_kind":"module","measured":true,"step":"forward"}',
      '{"kind":"span_start","id":"s9","parent_id":"s10","name":"r","start_ns":18446744073709551615,"span_kind":"op"}',
      '{"kind":"span_start","id":"😀","parent_id":"s10","name":"r","start_ns":0,"span_kind":"op"}',
      '{"kind":"span_start","id":"～","parent_id":"s10","name":"r","start_ns":0,"span_kind":"op"}',
      '{"kind":"span_end","id":"s10","duration_ns":18446744073709551615}',
      '{"kind":"op","span_id":"s3","op_name":"big","shape":[4294967296,4294967296,2],"dtype":"f64","device":"cpu","duration_ns":1}',
      '{"kind":"gradient","event_id":"g","root":"vb","key":"w","state":"present","norm":1e-7}',
      '{"kind":"gradient","event_id":"g","root":"vb","key":"w","state":"present","norm":-0}',
      '{"kind":"device_memory","timestamp_ns":5,"device":"cuda:0","used_bytes":100,"free_bytes":900,"reserved_bytes":256}',
    );
    expect(document.spans.map((s) => s.id)).toEqual(["s10", "s9", "～", "😀"]);
    const text = serializeDocument(document);
    expect(text).toContain('"tags":{"10":"a","9":"b","～":"y","😀":"x"}');
    expect(text).toContain('"storage_bytes":18446744073709551615');
    expect(text).toContain('"norm":1e-7}');
    expect(text).toContain('"norm":-0.0}');
    expect(parseTraceText(text)).toEqual(document);
  });

  it("pins the reader errors of Appendix D", () => {
    expect(
      parseError(
        jsonl(META, '{"kind":"gradient","event_id":"g","root":"vb","param_key":"w","state":"present"}'),
      ).message,
    ).toContain("missing field `key`");
    expect(parseError(jsonl(META.replace("candle-graph/trace/6", "not-candle-graph"))).message).toContain(
      "unsupported trace schema",
    );
    expect(parseError(jsonl(META, '{"kind":"span_end","id":"s2"}')).message).toContain("unknown span");
  });
});

describe("Appendix D: writer", () => {
  it("model::forward capture with a nested op span and an op after the guards", () => {
    const session = TraceSession.inMemory(ProfileRun.training("model::forward", 1, "cpu"));
    let innerId = "";
    {
      using measured = session.beginMeasurement("Model::forward");
      {
        using inner = session.beginSpan("matmul", "op");
        innerId = inner.id;
        const until = process.hrtime.bigint() + 20_000n;
        while (process.hrtime.bigint() < until) {
          // spin so the innermost span has a positive duration
        }
      }
      expect(measured.id).toBe("s2");
    }
    session.recordOp(innerId, {
      opName: "matmul",
      shape: [8, 8],
      dtype: "f32",
      device: "cpu",
      durationNs: 5,
      timestampNs: 0,
    });
    session.finish();
    const lines = session.sink
      .text()
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]?.kind).toBe("meta");
    const starts = lines.filter((l) => l.kind === "span_start");
    expect(starts.map((s) => [s.name, s.parent_id])).toEqual([
      ["model::forward", undefined],
      ["Model::forward", "s1"],
      ["matmul", "s2"],
    ]);
    const ends = lines.filter((l) => l.kind === "span_end");
    expect(ends.map((e) => e.id)).toEqual(["s3", "s2", "s1"]);
    expect(Number(ends[0]?.duration_ns)).toBeGreaterThan(0);
    const document = parseTraceText(session.sink.text());
    expect(document.ops[0]?.storage_bytes).toBe(256);
    expect(document.memory).toEqual([]);
  });

  it("measuredRegionDeviceSynchronized sets only the flag; deviceSynchronized sets both", () => {
    const flagOnly = ProfileRun.training("train::update", 2, "cuda:0").measuredRegionDeviceSynchronized();
    expect(flagOnly.measured_region_device_synchronized).toBe(true);
    expect(flagOnly.timing_mode).toBe("host");
    expect(flagOnly.warmup_steps).toBe(1);
    expect(flagOnly.correlation_id).toBe("train::update/update-2");
    const both = ProfileRun.training("train::update", 2, "cuda:0").deviceSynchronized();
    expect([both.measured_region_device_synchronized, both.timing_mode]).toEqual([
      true,
      "device_synchronized",
    ]);
    const session = TraceSession.inMemory(flagOnly);
    session.finish();
    expect(parseTraceText(session.sink.text()).run).toMatchObject({
      measured_region_device_synchronized: true,
      timing_mode: "host",
      phase: "train",
    });
  });

  it("rejects capture_step 0 with the reference message", () => {
    expect(() => TraceSession.inMemory(ProfileRun.training("m", 0, "cpu"))).toThrow(
      "capture_step must be one-based and greater than zero",
    );
  });

  it("a recorded gradient reads back with its key", () => {
    const session = TraceSession.inMemory(ProfileRun.training("m", 1, "cpu"));
    session.recordGradient("vb", "encoder.weight", "present", 0.42);
    session.finish();
    const gradients = parseTraceText(session.sink.text()).gradients;
    expect(gradients).toHaveLength(1);
    expect(gradients[0]).toMatchObject({ event_id: "gradient-1", key: "encoder.weight", norm: 0.42 });
  });
});

describe("Appendix D: memory", () => {
  it("alloc 40000 at 500, free at 1000 → peak 40000, one breakdown entry; without memory events → 0", () => {
    const document = doc(
      META,
      '{"kind":"span_start","id":"s1","name":"r","start_ns":0,"span_kind":"function","measured":true}',
      '{"kind":"memory","timestamp_ns":1000,"tensor_id":"t","span_id":"s1","device":"cpu","bytes":40000,"action":"free","dtype":"f32"}',
      '{"kind":"memory","timestamp_ns":500,"tensor_id":"t","span_id":"s1","device":"cpu","bytes":40000,"action":"alloc","dtype":"f32"}',
      '{"kind":"op","span_id":"s1","op_name":"m","shape":[100,100],"dtype":"f32","device":"cpu","duration_ns":1}',
      '{"kind":"tensor","span_id":"s1","tensor_id":"u","shape":[100,100],"dtype":"f32","device":"cpu"}',
      '{"kind":"span_end","id":"s1","duration_ns":2000}',
    );
    const analysis = analyzeMemory(document);
    expect(analysis).toMatchObject({
      peak_bytes: 40000,
      alloc_count: 1,
      free_count: 1,
      peak_timestamp_ns: 500,
      peak_device: "cpu",
    });
    expect(analysis.peak_breakdown.map((entry) => entry.tensor_id)).toEqual(["t"]);
    const none = analyzeMemory({ ...document, memory: [] });
    expect(none).toMatchObject({
      peak_bytes: 0,
      peak_device: "",
      alloc_count: 0,
      total_alloc_bytes: 0,
      autograd_retained_bytes: 0,
    });
    expect(none.timeline).toEqual([]);
    expect(none.peak_breakdown).toEqual([]);
    expect(summarize({ ...document, memory: [] }).peak_bytes).toBe(0);
  });
});

describe("Appendix D: health", () => {
  it("two roots (one measured) → untrusted, root_count", () => {
    const health = analyzeHealth(
      handBuilt([span("a", { measured: true, duration_ns: 10 }), span("b", { duration_ns: 10 })]),
    );
    expect(health.trusted).toBe(false);
    expect(errorCodes(handBuilt([span("a", { measured: true }), span("b")]))).toEqual(["root_count"]);
    expect(health.issues[0]?.message).toBe("expected exactly one root span, found 2");
  });

  it("a root plus a two-span parent cycle → span_cycle", () => {
    const document = handBuilt([
      span("root", { measured: true, duration_ns: 100 }),
      span("a", { parent_id: "b", start_ns: 10, duration_ns: 10 }),
      span("b", { parent_id: "a", start_ns: 10, duration_ns: 10 }),
    ]);
    const health = analyzeHealth(document);
    expect(errorCodes(document)).toEqual(["span_cycle", "span_cycle"]);
    expect(health.issues.filter((i) => i.code === "span_cycle").map((i) => i.message)).toEqual([
      "span `a` participates in a parent cycle",
      "span `b` participates in a parent cycle",
    ]);
    expect(summarize(document).max_depth).toBe(2);
  });

  it("Q7: a span whose ancestor chain leads into a cycle is also reported (reference)", () => {
    const document = handBuilt([
      span("root", { measured: true, duration_ns: 100 }),
      span("a", { parent_id: "b", start_ns: 10, duration_ns: 10 }),
      span("b", { parent_id: "a", start_ns: 10, duration_ns: 10 }),
      span("c", { parent_id: "a", start_ns: 10, duration_ns: 1 }),
    ]);
    expect(errorCodes(document)).toContain("span_cycle");
  });

  it("a 100 ns root with two 70 ns children → children_exceed_parent (reference sum)", () => {
    const document = handBuilt([
      span("root", { measured: true, duration_ns: 100 }),
      span("c1", { parent_id: "root", start_ns: 0, duration_ns: 70 }),
      span("c2", { parent_id: "root", start_ns: 30, duration_ns: 70 }),
    ]);
    expect(errorCodes(document, "reference")).toEqual(["children_exceed_parent"]);
    expect(analyzeHealth(document, { compat: "reference" }).issues[0]?.message).toBe(
      "children of span `root` total 140 ns, exceeding its 100 ns duration",
    );
  });

  it("a duplicated id `child` starting at 101 under a root [0, 100] → duplicate_span_id and child_outside_parent", () => {
    const document = handBuilt([
      span("child", { parent_id: "root", start_ns: 101, duration_ns: 5 }),
      span("child", { parent_id: "root", start_ns: 101, duration_ns: 5 }),
      span("root", { measured: true, duration_ns: 100 }),
    ]);
    const health = analyzeHealth(document);
    const codes = errorCodes(document);
    expect(codes[0]).toBe("duplicate_span_id");
    expect(codes).toContain("child_outside_parent");
    expect(health.issues[0]?.message).toBe("span IDs must be unique; found 3 records but 2 unique IDs");
    expect(health.issues.find((i) => i.code === "child_outside_parent")?.message).toBe(
      "span `child` interval 101..106 is outside parent `root` interval 0..100",
    );
  });
});

describe("Appendix D: graph self time and comparison", () => {
  it("a 10 ms root with children of 5 ms and 1 ms → root self time 4 ms, total 10 ms", () => {
    const document = doc(
      META,
      '{"kind":"span_start","id":"root","name":"root","start_ns":0,"span_kind":"function","measured":true}',
      '{"kind":"span_start","id":"encoder","parent_id":"root","name":"encoder","start_ns":0,"span_kind":"module"}',
      '{"kind":"span_end","id":"encoder","duration_ns":5000000}',
      '{"kind":"span_start","id":"b","parent_id":"root","name":"b","start_ns":6000000,"span_kind":"function"}',
      '{"kind":"span_end","id":"b","duration_ns":1000000}',
      '{"kind":"op","span_id":"encoder","op_name":"matmul","shape":[16,32],"dtype":"f32","device":"cpu","duration_ns":10}',
      '{"kind":"span_end","id":"root","duration_ns":10000000}',
    );
    for (const compat of [undefined, "reference"] as const) {
      const costs = spanCosts(document, compat === undefined ? {} : { compat });
      const root = costs.find((c) => c.id === "root");
      expect(root?.total_ns).toBe(10_000_000);
      expect(root?.self_ns).toBe(4_000_000);
      expect(costs.find((c) => c.id === "encoder")).toMatchObject({
        op_bytes: 2048,
        op_count: 1,
        self_ns: 5_000_000,
      });
    }
    expect(summarize(document).self_times.find((s) => s.id === "root")?.self_ns).toBe(4_000_000);
  });

  it("a zero-duration span gets its ops' plus its children's time", () => {
    const document = doc(
      META,
      '{"kind":"span_start","id":"root","name":"root","start_ns":0,"span_kind":"function","measured":true}',
      '{"kind":"span_start","id":"z","parent_id":"root","name":"z","start_ns":0,"span_kind":"function"}',
      '{"kind":"span_start","id":"zc","parent_id":"z","name":"zc","start_ns":0,"span_kind":"function"}',
      '{"kind":"span_end","id":"zc","duration_ns":7}',
      '{"kind":"span_end","id":"z","duration_ns":0}',
      '{"kind":"op","span_id":"z","op_name":"a","dtype":"f32","device":"cpu","duration_ns":3}',
      '{"kind":"span_end","id":"root","duration_ns":100}',
    );
    const z = spanCosts(document, { compat: "reference" }).find((c) => c.id === "z");
    expect(z?.total_ns).toBe(10);
    expect(z?.self_ns).toBe(3);
  });

  it("measured 100 versus 80 ns → comparable, total delta −20 (−20 %), path session/update/forward, one changed gradient", () => {
    const trace = (measured: number, forward: number, norm: string) =>
      doc(
        META_TRAIN,
        '{"kind":"span_start","id":"s1","name":"session","start_ns":0,"span_kind":"function","measured":false}',
        '{"kind":"span_start","id":"s2","parent_id":"s1","name":"update","start_ns":0,"span_kind":"function","measured":true}',
        '{"kind":"span_start","id":"s3","parent_id":"s2","name":"forward","start_ns":0,"span_kind":"function","measured":false,"step":"forward"}',
        `{"kind":"span_end","id":"s3","duration_ns":${forward}}`,
        `{"kind":"span_end","id":"s2","duration_ns":${measured}}`,
        '{"kind":"gradient","event_id":"gradient-1","root":"vb","key":"w","state":"present","norm":0.5}',
        `{"kind":"gradient","event_id":"gradient-2","root":"vb","key":"v","state":"present","norm":${norm}}`,
        '{"kind":"span_end","id":"s1","duration_ns":200}',
      );
    const comparison = compareTraces(trace(100, 50, "1.0"), trace(80, 40, "2.0"));
    expect(comparison.comparable).toBe(true);
    expect(comparison.total_delta_ns).toBe(-20);
    expect(comparison.total_delta_percent).toBeCloseTo(-20, 10);
    expect(comparison.span_deltas.some((d) => d.path.includes("session/update/forward"))).toBe(true);
    expect(comparison.gradient_changes).toHaveLength(1);
    const zero = compareTraces(trace(0, 0, "1.0"), trace(80, 40, "1.0"));
    expect(zero.total_delta_ns).toBe(80);
    expect(zero).not.toHaveProperty("total_delta_percent");
  });

  it("comparison of an untrusted trace is allowed but not comparable", () => {
    const untrusted = doc(
      META,
      '{"kind":"span_start","id":"s1","name":"r","start_ns":0,"span_kind":"function","measured":false}',
      '{"kind":"span_end","id":"s1","duration_ns":1}',
    );
    const comparison = compareTraces(untrusted, untrusted);
    expect(comparison.comparable).toBe(false);
    expect(comparison.reasons.length).toBeGreaterThan(0);
  });
});

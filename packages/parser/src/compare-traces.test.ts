import { describe, expect, it } from "vitest";
import { compareTraces, parseTraceText, queryTrace, spanCosts } from "./index.js";

// Spec Appendix D, comparison: measured 100 versus 80 ns.
function trace(options: { measured: number; norm: number; tags?: Record<string, string>; device?: string }) {
  const meta = {
    kind: "meta",
    schema: "candle-graph/trace/6",
    run_id: `run-${options.measured}`,
    correlation_id: "session/update-1",
    entrypoint: "session",
    phase: "train",
    timestamp: "2025-01-01T00:00:00.000Z",
    capture_step: 1,
    warmup_steps: 0,
    device: options.device ?? "cpu",
    timing_mode: "host",
    tags: options.tags ?? {},
  };
  const half = options.measured / 2;
  return parseTraceText(
    [
      meta,
      { kind: "span_start", id: "s1", name: "session", start_ns: 0, span_kind: "function", measured: true },
      { kind: "span_start", id: "s2", parent_id: "s1", name: "update", start_ns: 0, span_kind: "function" },
      {
        kind: "span_start",
        id: "s3",
        parent_id: "s2",
        name: "forward",
        start_ns: 0,
        span_kind: "function",
        step: "forward",
      },
      {
        kind: "op",
        span_id: "s3",
        op_name: "matmul",
        shape: [8, 8],
        dtype: "f32",
        device: "cpu",
        duration_ns: 5,
      },
      { kind: "tensor", span_id: "s3", tensor_id: "t", shape: [8, 8], dtype: "f32", device: "cpu" },
      { kind: "span_end", id: "s3", duration_ns: half },
      { kind: "span_end", id: "s2", duration_ns: options.measured },
      { kind: "span_end", id: "s1", duration_ns: options.measured },
      {
        kind: "gradient",
        event_id: "gradient-1",
        root: "vb",
        key: "encoder.weight",
        state: "present",
        norm: options.norm,
      },
      { kind: "gradient", event_id: "gradient-2", root: "vb", key: "head.bias", state: "present", norm: 1 },
    ]
      .map((event) => JSON.stringify(event))
      .join("\n"),
  );
}

describe("compareTraces", () => {
  it("compares measured 100 versus 80 ns (spec Appendix D)", () => {
    const comparison = compareTraces(
      trace({ measured: 100, norm: 0.42 }),
      trace({ measured: 80, norm: 0.5 }),
    );
    expect(comparison.reasons).toEqual([]);
    expect(comparison.comparable).toBe(true);
    expect(comparison.total_delta_ns).toBe(-20);
    expect(comparison.total_delta_percent).toBe(-20);
    expect(comparison.span_deltas.some((delta) => delta.path.includes("session/update/forward"))).toBe(true);
    expect(comparison.span_deltas[0]).toMatchObject({ baseline_ns: 100, candidate_ns: 80, delta_ns: -20 });
    expect(comparison.span_deltas.map((delta) => delta.path)).toContain(
      "session/update/forward [function]/Forward",
    );
    expect(comparison.gradient_changes).toEqual([
      {
        key: "vb/encoder.weight",
        baseline: { state: "present", norm: 0.42 },
        candidate: { state: "present", norm: 0.5 },
      },
    ]);
    expect(comparison.peak_delta_bytes).toBe(0);
    expect(comparison.peak_delta_percent).toBeUndefined();
  });

  it("omits percentages when the baseline is 0 and flags mismatches", () => {
    const comparison = compareTraces(
      trace({ measured: 0, norm: 1, tags: { source_revision: "a", batch: "1" } }),
      trace({ measured: 10, norm: 1, tags: { source_revision: "b", batch: "2" }, device: "cuda:0" }),
    );
    expect(comparison.total_delta_percent).toBeUndefined();
    expect(comparison.total_delta_ns).toBe(10);
    expect(comparison.comparable).toBe(false);
    expect(comparison.reasons).toEqual([
      "device differs: baseline cpu, candidate cuda:0",
      'tag "batch" differs: baseline "1", candidate "2"',
    ]);
    expect(comparison.warnings).toEqual(['tag "source_revision" differs: baseline "a", candidate "b"']);
  });

  it("marks untrusted traces not comparable", () => {
    const untrusted = parseTraceText(
      '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"session","phase":"train","timestamp":"t","capture_step":1,"warmup_steps":0,"device":"cpu","timing_mode":"host","tags":{}}\n',
    );
    const comparison = compareTraces(untrusted, trace({ measured: 80, norm: 0.42 }));
    expect(comparison.comparable).toBe(false);
    expect(comparison.reasons[0]).toBe("baseline trace is structurally untrusted");
  });
});

describe("span costs and queries", () => {
  it("computes self time like the reference graph: a 10 ms root with 5 ms and 1 ms children", () => {
    const lines = [
      '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"infer","timestamp":"t","capture_step":1,"warmup_steps":0,"device":"cpu","timing_mode":"host","tags":{}}',
      '{"kind":"span_start","id":"root","name":"root","start_ns":0,"span_kind":"function","measured":true}',
      '{"kind":"span_start","id":"a","parent_id":"root","name":"encoder","start_ns":0,"span_kind":"module"}',
      '{"kind":"span_start","id":"b","parent_id":"root","name":"b","start_ns":6000000,"span_kind":"function"}',
      '{"kind":"op","span_id":"a","op_name":"add","shape":[32,32],"dtype":"bf16","device":"cpu","duration_ns":100}',
      '{"kind":"op","span_id":"b","op_name":"mul","shape":[4],"dtype":"f32","device":"cpu","duration_ns":50}',
      '{"kind":"span_end","id":"a","duration_ns":5000000}',
      '{"kind":"span_end","id":"b","duration_ns":1000000}',
      '{"kind":"span_end","id":"root","duration_ns":10000000}',
    ];
    const document = parseTraceText(lines.join("\n"));
    const costs = Object.fromEntries(spanCosts(document).map((cost) => [cost.id, cost]));
    expect(costs.root).toMatchObject({ total_ns: 10_000_000, self_ns: 4_000_000, depth: 0, path: "root" });
    expect(costs.a).toMatchObject({
      op_count: 1,
      op_bytes: 2048,
      path: "root/encoder",
      in_measured_subtree: true,
    });

    const slowest = queryTrace(document, "slowest");
    // Ranked by self time: encoder (5 ms self) before the root (4 ms self).
    expect(slowest.slowest_spans.map((span) => [span.id, span.self_ns])).toEqual([
      ["a", 5_000_000],
      ["root", 4_000_000],
      ["b", 1_000_000],
    ]);
    expect(slowest.total_ms).toBe(10);
    expect(slowest.slowest_ops.map((op) => op.id)).toEqual(["a/op/0", "b/op/0"]);
    const heaviest = queryTrace(document, "heaviest", { limit: 1 });
    expect(heaviest.heaviest_spans.map((span) => span.name)).toEqual(["encoder"]);
    expect(heaviest.heaviest_ops[0]).toMatchObject({ id: "a/op/0", storage_bytes: 2048 });
    const efficiency = queryTrace(document, "efficiency");
    expect(efficiency.ops.map((op) => op.bytes_per_ns)).toEqual([2048 / 100, 16 / 50]);
  });

  it("does not count overlapping (concurrent) children twice unless asked to", () => {
    const lines = [
      '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"infer","timestamp":"t","capture_step":1,"warmup_steps":0,"device":"cpu","timing_mode":"host","tags":{}}',
      '{"kind":"span_start","id":"root","name":"root","start_ns":0,"span_kind":"function","measured":true}',
      '{"kind":"span_start","id":"x","parent_id":"root","name":"x","start_ns":10,"span_kind":"function"}',
      '{"kind":"span_start","id":"y","parent_id":"root","name":"y","start_ns":20,"span_kind":"function"}',
      '{"kind":"span_end","id":"x","duration_ns":70}',
      '{"kind":"span_end","id":"y","duration_ns":70}',
      '{"kind":"span_end","id":"root","duration_ns":100}',
    ];
    const document = parseTraceText(lines.join("\n"));
    expect(spanCosts(document).find((cost) => cost.id === "root")?.self_ns).toBe(20);
    expect(spanCosts(document, { compat: "reference" }).find((cost) => cost.id === "root")?.self_ns).toBe(0);
  });

  it("counts gradients by state", () => {
    const result = queryTrace(trace({ measured: 2, norm: 1 }), "gradients");
    expect(result.counts).toEqual({ present: 2, missing: 0, zero: 0, non_finite: 0 });
    expect(result.attention_count).toBe(0);
    expect(() => queryTrace(trace({ measured: 2, norm: 1 }), "nope" as "spans")).toThrow(
      /unknown query kind/,
    );
  });
});

// On random pairs of traces (nested, overlapping and zero-length spans, ops before their span
// starts, ops outside the measured region, allocations freed or kept, several devices), both halves
// of the attribution add up to the measured deltas exactly, and the comparison (with its
// attribution and gate) is the same read in file order as folded from the parsed documents.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareTraceFiles, compareTraces, parseGateRules, parseTraceText } from "./index.js";

const META = {
  kind: "meta",
  schema: "candle-graph/trace/6",
  run_id: "r",
  correlation_id: "c",
  entrypoint: "e",
  phase: "train",
  timestamp: "t",
  capture_step: 1,
  warmup_steps: 0,
  device: "cpu",
  timing_mode: "host",
  tags: {},
};
const NAMES = ["forward", "backward", "layer-1", "layer-2", "opt"];
const OPS = ["matmul", "relu", "add"];

const spanSpec = fc.record({
  parent: fc.nat(),
  name: fc.constantFrom(...NAMES),
  start: fc.nat({ max: 1000 }),
  duration: fc.nat({ max: 2000 }),
  step: fc.constantFrom(undefined, "forward", "backward", "optimizer"),
});
const opSpec = fc.record({
  span: fc.nat(),
  name: fc.constantFrom(...OPS),
  shape: fc.constantFrom([2], [2, 2], [8]),
  duration: fc.nat({ max: 500 }),
  early: fc.boolean(),
});
const memorySpec = fc.record({
  span: fc.nat(),
  tensor: fc.nat({ max: 6 }),
  bytes: fc.integer({ min: 1, max: 5000 }),
  free: fc.boolean(),
  device: fc.constantFrom("cpu", "cuda:0"),
  category: fc.constantFrom("activation", "gradient", "optimizer", "parameter", "other"),
  op: fc.constantFrom(undefined, ...OPS),
  at: fc.nat({ max: 3000 }),
});
const traceSpec = fc.record({
  spans: fc.array(spanSpec, { minLength: 1, maxLength: 7 }),
  ops: fc.array(opSpec, { maxLength: 12 }),
  memory: fc.array(memorySpec, { maxLength: 12 }),
  measuredDuration: fc.nat({ max: 5000 }),
});

/** The trace's text: root s1, measured s2, then the spans (each under an earlier one). */
type TraceSpec = typeof traceSpec extends fc.Arbitrary<infer T> ? T : never;

function traceText(spec: TraceSpec): string {
  const lines: object[] = [META];
  lines.push({ kind: "span_start", id: "s1", name: "e", start_ns: 0, span_kind: "function" });
  lines.push({
    kind: "span_start",
    id: "s2",
    parent_id: "s1",
    name: "update-7",
    start_ns: 0,
    span_kind: "function",
    measured: true,
  });
  const ids = ["s1", "s2"];
  const earlyOps: object[] = [];
  const opsOf = new Map<string, object[]>();
  for (const op of spec.ops) {
    const id = `s${(op.span % (spec.spans.length + 2)) + 1}`;
    const line = {
      kind: "op",
      span_id: id,
      op_name: op.name,
      shape: op.shape,
      dtype: "f32",
      device: "cpu",
      duration_ns: op.duration,
      timestamp_ns: 1,
    };
    if (op.early) earlyOps.push(line);
    else opsOf.set(id, [...(opsOf.get(id) ?? []), line]);
  }
  lines.push(...earlyOps);
  for (const [id, ops] of opsOf) if (id === "s1" || id === "s2") lines.push(...ops);
  spec.spans.forEach((span, index) => {
    const id = `s${index + 3}`;
    const parent = ids[1 + (span.parent % (ids.length - 1))] as string;
    lines.push({
      kind: "span_start",
      id,
      parent_id: parent,
      name: span.name,
      start_ns: span.start,
      span_kind: "function",
      ...(span.step === undefined ? {} : { step: span.step }),
    });
    lines.push(...(opsOf.get(id) ?? []));
    ids.push(id);
  });
  for (const memory of [...spec.memory].sort((a, b) => a.at - b.at)) {
    lines.push({
      kind: "memory",
      span_id: `s${(memory.span % (spec.spans.length + 2)) + 1}`,
      tensor_id: `t${memory.tensor}`,
      device: memory.device,
      bytes: memory.bytes,
      action: memory.free ? "free" : "alloc",
      dtype: "f32",
      category: memory.category,
      ...(memory.op === undefined ? {} : { op_name: memory.op }),
      timestamp_ns: memory.at,
    });
  }
  for (let index = spec.spans.length - 1; index >= 0; index--) {
    lines.push({
      kind: "span_end",
      id: `s${index + 3}`,
      duration_ns: (spec.spans[index] as { duration: number }).duration,
    });
  }
  lines.push({ kind: "span_end", id: "s2", duration_ns: spec.measuredDuration });
  lines.push({ kind: "span_end", id: "s1", duration_ns: spec.measuredDuration + 10 });
  return lines.map((line) => JSON.stringify(line)).join("\n");
}

describe("attribution on random pairs", () => {
  it("adds up exactly, and the stream equals the document", async () => {
    const rules = parseGateRules(
      "time>5%,peak>1KiB,span:forward/time>0ns,span:forward/peak>0B,op:matmul/time>1%,op:relu/peak>1B,span:nothing/time>1%",
    );
    await fc.assert(
      fc.asyncProperty(traceSpec, traceSpec, fc.integer({ min: 0, max: 4 }), async (left, right, limit) => {
        const baselineText = traceText(left);
        const candidateText = traceText(right);
        const baseline = parseTraceText(baselineText);
        const candidate = parseTraceText(candidateText);
        const options = { attributionLimit: limit };
        const comparison = compareTraces(baseline, candidate, options);
        const attribution = comparison.attribution;
        if (attribution === undefined) throw new Error("no attribution");
        const time = attribution.time;
        expect(BigInt(time.delta_ns)).toBe(BigInt(comparison.total_delta_ns));
        const named = time.parts.reduce((sum, part) => sum + BigInt(part.delta_ns), 0n);
        expect(named + BigInt(time.unmatched.delta_ns) + BigInt(time.other.delta_ns)).toBe(
          BigInt(time.delta_ns),
        );
        expect(time.parts.length).toBeLessThanOrEqual(limit);
        const peak = attribution.peak;
        expect(BigInt(peak.delta_bytes)).toBe(BigInt(comparison.peak_delta_bytes));
        const bytes = peak.parts.reduce((sum, part) => sum + BigInt(part.delta_bytes), 0n);
        expect(bytes + BigInt(peak.unmatched.delta_bytes) + BigInt(peak.other.delta_bytes)).toBe(
          BigInt(peak.delta_bytes),
        );
        expect(peak.parts.map((part) => part.rank)).toEqual(peak.parts.map((_, index) => index + 1));
        const streamed = await compareTraceFiles(
          () => ({ text: baselineText }),
          () => ({ text: candidateText }),
          options,
        );
        expect(streamed).toStrictEqual(comparison);
        // The gate, on both paths: the same checks, or the same refusal of a selector naming nothing.
        const gated = (run: () => unknown) =>
          Promise.resolve()
            .then(run)
            .then(
              (value) => ({ value }),
              (error: Error) => ({ error: error.message }),
            );
        const rulesFor = rules.slice(0, 6);
        expect(
          await gated(() =>
            compareTraceFiles(
              () => ({ text: baselineText }),
              () => ({ text: candidateText }),
              { failOn: rulesFor },
            ),
          ),
        ).toStrictEqual(await gated(() => compareTraces(baseline, candidate, { failOn: rulesFor })));
      }),
      { numRuns: 150 },
    );
  });
});

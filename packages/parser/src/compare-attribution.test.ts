// Attribution on small hand-made pairs: each planted change must come out as the first part, with
// its exact delta, and the parts must add up to the measured deltas.
import { describe, expect, it } from "vitest";
import { LAYERS, type Layer, trace } from "./compare-pair.test-support.js";
import { type ComparisonAttribution, compareTraces, formatAttribution, type TraceDocument } from "./index.js";

function attribution(baseline: TraceDocument, candidate: TraceDocument): ComparisonAttribution {
  const result = compareTraces(baseline, candidate).attribution;
  if (result === undefined) throw new Error("no attribution");
  return result;
}

function expectExactSums(result: ComparisonAttribution): void {
  const time = result.time;
  const named = time.parts.reduce((sum, part) => sum + BigInt(part.delta_ns), 0n);
  expect(named + BigInt(time.unmatched.delta_ns) + BigInt(time.other.delta_ns)).toBe(BigInt(time.delta_ns));
  const peak = result.peak;
  const bytes = peak.parts.reduce((sum, part) => sum + BigInt(part.delta_bytes), 0n);
  expect(bytes + BigInt(peak.unmatched.delta_bytes) + BigInt(peak.other.delta_bytes)).toBe(
    BigInt(peak.delta_bytes),
  );
}

describe("attributeComparison", () => {
  it("names the slowed op in its span first, with the exact delta", () => {
    const slowed = structuredClone(LAYERS);
    (slowed[1] as Layer).ops[0] = ["matmul", 2700];
    const result = attribution(trace(LAYERS), trace(slowed));
    expectExactSums(result);
    expect(result.time.delta_ns).toBe(700);
    expect(result.time.parts[0]).toMatchObject({
      rank: 1,
      kind: "op",
      op: "matmul [4] f32 cpu",
      span: "e/model/update-000001/backward [function]/Backward",
      match: "path",
      baseline_ns: 2000,
      candidate_ns: 2700,
      delta_ns: 700,
      share: 1,
      baseline_calls: 1,
      candidate_calls: 1,
    });
    expect(result.time.named_share).toBe(1);
    expect(result.time.unmatched.delta_ns).toBe(0);
    expect(result.time.other).toMatchObject({ delta_ns: 0, structure_delta_ns: 0 });
    // The same op in another span did not change: it is not blamed.
    const forward = result.time.parts.find(
      (part) => part.span?.includes("/forward") && part.op?.startsWith("matmul"),
    );
    expect(forward?.delta_ns ?? 0).toBe(0);
  });

  it("matches spans whose names differ only by numbers (the update step)", () => {
    const slowed = structuredClone(LAYERS);
    (slowed[0] as Layer).ops[1] = ["relu", 260];
    const result = attribution(trace(LAYERS, 1), trace(slowed, 2));
    expectExactSums(result);
    expect(result.time.parts[0]).toMatchObject({
      op: "relu [4] f32 cpu",
      match: "masked_path",
      delta_ns: 60,
    });
    expect(result.time.unmatched.parts).toBe(0);
  });

  it("keeps spans found on one side only as unmatched, and ops new to a matched span as its parts", () => {
    const changed = structuredClone(LAYERS);
    (changed[2] as Layer).ops.push(["cast", 90]);
    changed.push({ name: "clip", ops: [["clip_norm", 40]] });
    // relu moves from forward into backward.
    (changed[0] as Layer).ops = [["matmul", 1000]];
    (changed[1] as Layer).ops.push(["relu", 200]);
    const result = attribution(trace(LAYERS), trace(changed));
    expectExactSums(result);
    // The new span clip: its own time (100) and clip_norm (40).
    expect(result.time.unmatched).toMatchObject({
      baseline_ns: 0,
      candidate_ns: 140,
      delta_ns: 140,
      parts: 2,
    });
    expect(result.time.unmatched.largest[0]).toMatchObject({
      side: "candidate",
      label: "e/model/update-000001/clip [function] (own time outside ops)",
      ns: 100,
    });
    // cast is new in a span both traces hold: a part of that span, from 0 calls.
    expect(result.time.parts.find((part) => part.op === "cast [4] f32 cpu")).toMatchObject({
      match: "path",
      span: "e/model/update-000001/optimizer [function]/Optimizer",
      baseline_ns: 0,
      candidate_ns: 90,
      baseline_calls: 0,
      candidate_calls: 1,
    });
    // relu left forward (-200) and joined backward (+200).
    const relu = result.time.parts.filter((part) => part.op === "relu [4] f32 cpu");
    expect(relu.map((part) => [part.span?.split("/")[3], part.delta_ns])).toEqual([
      ["backward [function]", 200],
      ["forward [function]", -200],
    ]);
  });

  it("names the span that allocates more at the peak first", () => {
    const bigger = structuredClone(LAYERS);
    (bigger[1] as Layer).kept = [800, "gradient"];
    const result = attribution(trace(LAYERS), trace(bigger));
    expectExactSums(result);
    expect(result.peak.delta_bytes).toBe(300);
    expect(result.peak.parts[0]).toMatchObject({
      rank: 1,
      category: "gradient",
      op: "alloc_op",
      span: "e/model/update-000001/backward [function]/Backward",
      baseline_bytes: 500,
      candidate_bytes: 800,
      delta_bytes: 300,
      share: 1,
      largest: { side: "candidate", tensor_id: "s4-kept", bytes: 800 },
    });
    expect(result.peak.moved).toBe(false);
    expect(result.peak.by_category[0]).toEqual({
      category: "gradient",
      baseline_bytes: 500,
      candidate_bytes: 800,
      delta_bytes: 300,
    });
  });

  it("says when the peak moved to another span, and why", () => {
    // Baseline peak in forward: weights 1000 + scratch 800 (backward then holds 1500, the optimizer
    // 1600). A candidate optimizer scratch of 2000 moves the peak there: 1000 + 500 + 2000.
    const base = structuredClone(LAYERS);
    (base[0] as Layer).scratch = 800;
    const moved = structuredClone(base);
    (moved[2] as Layer).scratch = 2000;
    const result = attribution(trace(base), trace(moved));
    expectExactSums(result);
    expect(result.peak.baseline_peak.span).toBe("e/model/update-000001/forward [function]/Forward");
    expect(result.peak.candidate_peak.span).toBe("e/model/update-000001/optimizer [function]/Optimizer");
    expect(result.peak.moved).toBe(true);
    expect(result.peak.delta_bytes).toBe(3500 - 1800);
    // What the candidate's peak holds that the baseline's did not, and what it no longer holds.
    const changed = result.peak.parts.filter((part) => part.delta_bytes !== 0);
    expect(changed.map((part) => [part.category, part.span?.split("/")[3], part.delta_bytes])).toEqual([
      ["activation", "optimizer [function]", 2000],
      ["gradient", "backward [function]", 500],
      ["activation", "forward [function]", -800],
    ]);
    expect(result.peak.parts[0]?.baseline_bytes).toBe(0);
    expect(formatAttribution(result)).toContain(
      "the peak moved from e/model/update-000001/forward [function]/Forward to e/model/update-000001/optimizer [function]/Optimizer",
    );
  });

  it("puts parts beyond the limit into other, and still adds up", () => {
    const slowed = LAYERS.map((layer) => ({
      ...layer,
      ops: layer.ops.map(([name, ns]) => [name, ns + 10] as [string, number]),
    }));
    const result = compareTraces(trace(LAYERS), trace(slowed), { attributionLimit: 2 }).attribution;
    if (result === undefined) throw new Error("no attribution");
    expectExactSums(result);
    expect(result.time.parts).toHaveLength(2);
    // Five ops tie at +10 ns: the two named are the first by key text (span path, then signature).
    expect(result.time.parts.map((part) => part.label)).toEqual([
      "matmul [4] f32 cpu in e/model/update-000001/backward [function]/Backward",
      "relu_grad [4] f32 cpu in e/model/update-000001/backward [function]/Backward",
    ]);
    expect(result.time.other.parts).toBeGreaterThan(0);
    expect(BigInt(result.time.other.parts_delta_ns)).toBe(BigInt(result.time.delta_ns) - 20n);
  });

  it("formats a ranked text with the unmatched and other rows", () => {
    const slowed = structuredClone(LAYERS);
    (slowed[1] as Layer).ops[0] = ["matmul", 2700];
    const text = formatAttribution(attribution(trace(LAYERS), trace(slowed)), { limit: 1 });
    const lines = text.split("\n");
    expect(lines[0]).toBe("Step time +700 ns (+16.6%); the named parts +700 ns (100% of it):");
    expect(lines[1]).toMatch(
      /^ {3}1\. +\+700 ns {2}matmul \[4\] f32 cpu in e\/model\/update-000001\/backward \[function\]\/Backward \(1 → 1 calls\)$/,
    );
    expect(text).toContain("unmatched: 0 parts on one side only");
    expect(text).toContain("other: 0 smaller parts +0 ns");
    expect(text).toContain("Peak memory +0 B (+0.0%)");
  });
});

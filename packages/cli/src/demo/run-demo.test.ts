import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { analyzeHealth, EVENT_KINDS, readTraceEvents } from "@cg/trace";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChromeTrace, checkPerfettoRules } from "../../test/perfetto-rules.js";
import { type DemoResult, runDemo } from "./run-demo.js";

describe("runDemo", () => {
  const outDir = mkdtempSync(join(tmpdir(), "cg-demo-"));
  let result: DemoResult;
  beforeAll(async () => {
    result = await runDemo({ outDir, steps: 3, gpu: false });
  }, 60_000);
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it("captures a trusted training step with every event kind except edges", async () => {
    const health = analyzeHealth(result.document);
    expect(health.issues).toEqual([]);
    expect(health.trusted).toBe(true);
    const kinds = new Set<string>();
    for await (const record of readTraceEvents(result.tracePath)) kinds.add(record.event.kind);
    expect([...kinds].sort()).toEqual(EVENT_KINDS.filter((kind) => kind !== "edge").sort());
    expect(result.document.run).toMatchObject({ capture_step: 3, warmup_steps: 2, phase: "train" });
    expect(result.document.spans.map((span) => span.step).filter(Boolean)).toEqual([
      "forward",
      "backward",
      "optimizer",
    ]);
    expect(result.document.device_memory.map((sample) => sample.device)).toContain("cpu");
  });

  it("trains for real: the loss falls and gradient norms are finite and positive", () => {
    expect(result.losses).toHaveLength(3);
    expect(result.losses[2]!).toBeLessThan(result.losses[0]!);
    const norms = result.document.gradients.map((gradient) => gradient.norm!);
    expect(result.document.gradients.map((gradient) => gradient.key)).toEqual([
      "layer1.weight",
      "layer1.bias",
      "layer2.weight",
      "layer2.bias",
    ]);
    for (const norm of norms) expect(norm).toBeGreaterThan(0);
  });

  it("is deterministic: the same seed gives the same losses", async () => {
    const again = mkdtempSync(join(tmpdir(), "cg-demo-again-"));
    try {
      const second = await runDemo({ outDir: again, steps: 3, gpu: false });
      expect(second.losses).toEqual(result.losses);
      expect(second.document.gradients).toEqual(result.document.gradients);
    } finally {
      rmSync(again, { recursive: true, force: true });
    }
  });

  it("pairs every allocation with a free and categorises memory by step", () => {
    const allocs = result.document.memory.filter((event) => event.action === "alloc");
    const frees = result.document.memory.filter((event) => event.action === "free");
    expect(frees.map((event) => event.tensor_id).sort()).toEqual(
      allocs.map((event) => event.tensor_id).sort(),
    );
    expect(new Set(allocs.map((event) => event.category))).toEqual(new Set(["activation", "gradient"]));
  });

  it("writes a Perfetto file that follows every rule", () => {
    const trace = JSON.parse(readFileSync(result.perfettoPath, "utf8")) as ChromeTrace;
    checkPerfettoRules(trace);
    expect(trace.otherData.entrypoint).toBe("demo::mlp::train_step");
    expect(trace.traceEvents.some((event) => event.name === "memory cpu activation")).toBe(true);
    expect(trace.traceEvents.some((event) => event.name === "device_memory cpu used")).toBe(true);
  });
});

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { analyzeHealth, EVENT_KINDS, readTraceEvents } from "@cg/trace";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChromeTrace, checkPerfettoRules } from "../../test/perfetto-rules.js";
import { type DemoResult, runDemo, TFJS_DEMO_ENTRYPOINT } from "./run-demo.js";

describe("runDemo --model mlp", () => {
  const outDir = mkdtempSync(join(tmpdir(), "cg-demo-"));
  let result: DemoResult;
  beforeAll(async () => {
    result = await runDemo({ outDir, model: "mlp", steps: 3, gpu: false });
  }, 60_000);

  it("reports the model it ran", () => {
    expect(result.model).toBe("mlp");
  });
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
      const second = await runDemo({ outDir: again, model: "mlp", steps: 3, gpu: false });
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

describe("runDemo --model tfjs (the default)", () => {
  const outDir = mkdtempSync(join(tmpdir(), "cg-demo-tfjs-"));
  let result: DemoResult;
  beforeAll(async () => {
    // No GPU sampling here, so the trace is the same on every machine; the built-binary test in
    // test/e2e.test.ts covers NVML through a fake libnvidia-ml.
    result = await runDemo({ outDir, gpu: false });
  }, 120_000);
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it("trains the tfjs model and captures the step after one warm-up step", () => {
    expect(result.model).toBe("tfjs");
    expect(result.losses).toHaveLength(2);
    expect(result.losses.every(Number.isFinite)).toBe(true);
    expect(result.document.run).toMatchObject({
      entrypoint: TFJS_DEMO_ENTRYPOINT,
      capture_step: 2,
      warmup_steps: 1,
      phase: "train",
    });
    expect(result.document.run.tags).toMatchObject({ framework: "tfjs", model: "tfjs-dense-32-64-64-8" });
  });

  it("is trusted and contains every event kind except edges", async () => {
    const health = analyzeHealth(result.document);
    expect(health.trusted).toBe(true);
    expect(health.issues.filter((issue) => issue.severity === "error")).toEqual([]);
    // The new weights and Adam moments outlive the step: the one expected warning.
    expect(health.issues.map((issue) => issue.code)).toEqual(["retained_allocations"]);
    const kinds = new Set<string>();
    for await (const record of readTraceEvents(result.tracePath)) kinds.add(record.event.kind);
    expect([...kinds].sort()).toEqual(EVENT_KINDS.filter((kind) => kind !== "edge").sort());
    for (const kind of ["op", "tensor", "memory", "gradient", "device_memory"]) expect(kinds).toContain(kind);
    expect(result.document.spans.map((span) => span.step).filter(Boolean)).toEqual([
      "forward",
      "backward",
      "optimizer",
    ]);
  });

  it("records tfjs kernels, tf.memory() checkpoints and one gradient fact per variable", () => {
    const ops = new Set(result.document.ops.map((op) => op.op_name));
    expect(ops).toContain("_FusedMatMul");
    expect(result.document.device_memory.length).toBeGreaterThanOrEqual(2);
    for (const sample of result.document.device_memory) expect(sample.device).toBe("cpu");
    expect(result.deviceMemory).toEqual({
      gpuDevices: [],
      gpuUnavailableReason: "GPU sampling disabled (--no-gpu)",
    });
    expect(result.document.gradients).toHaveLength(6);
    for (const gradient of result.document.gradients) {
      expect(gradient.state).toBe("present");
      expect(gradient.norm!).toBeGreaterThan(0);
    }
  });

  it("writes a Perfetto file that follows every rule, and the report", () => {
    const trace = JSON.parse(readFileSync(result.perfettoPath, "utf8")) as ChromeTrace;
    checkPerfettoRules(trace);
    expect(trace.otherData.entrypoint).toBe(TFJS_DEMO_ENTRYPOINT);
    expect(trace.traceEvents.some((event) => event.name === "device_memory cpu used")).toBe(true);
    expect(result.reportPath).toBeDefined();
    expect(readFileSync(result.reportPath!, "utf8")).toContain("<html");
  });
});

import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { analyzeHealth, parseTrace, parseTraceText, type TraceDocument } from "@cg/parser";
import * as ort from "onnxruntime-node";
import { afterAll, describe, expect, it } from "vitest";
import { captureSessionRun } from "../src/capture-session-run.js";
import { branchResidualModel, mlpModel } from "../src/demo-models.js";
import { traceDtype } from "../src/dtype-label.js";
import type { OrtProfileRun } from "../src/ort-profile-run.js";
import { profileInference } from "../src/profile-inference.js";
import { profilingSessionOptions } from "../src/profiling-session-options.js";
import { readOrtProfile } from "../src/read-ort-profile.js";

const directory = mkdtempSync(join(tmpdir(), "cg-onnxruntime-test-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function input(batch: number, width: number, seed = 1): ort.Tensor {
  const values = new Float32Array(batch * width);
  for (let index = 0; index < values.length; index++) values[index] = Math.sin(index * 0.37 + seed);
  return new ort.Tensor("float32", values, [batch, width]);
}

async function bareOutputs(model: Uint8Array, feeds: Record<string, ort.Tensor>): Promise<Float32Array> {
  const session = await ort.InferenceSession.create(model);
  try {
    const outputs = await session.run(feeds);
    return (outputs.y as ort.Tensor).data as Float32Array;
  } finally {
    await session.release();
  }
}

/** The trace's ops must be the profile's node list for the run, field by field. */
function expectOpsMatchProfile(trace: TraceDocument, profile: OrtProfileRun, modelRunStartNs: number): void {
  const spanById = new Map(trace.spans.map((span) => [span.id, span]));
  const nodes = [...profile.nodes].sort((a, b) => Number(a.startUs - b.startUs));
  const ops = [...trace.ops].sort((a, b) => Number(a.timestamp_ns) - Number(b.timestamp_ns));
  expect(ops.map((op) => op.op_name)).toEqual(nodes.map((node) => node.opType));
  for (const [index, node] of nodes.entries()) {
    const op = ops[index];
    if (op === undefined) throw new Error("missing op");
    const span = spanById.get(op.span_id);
    expect(span?.name).toBe(node.nodeName);
    expect(span?.kind).toBe("op");
    expect(op.duration_ns).toBe(Number(node.durationUs * 1000n));
    expect(op.timestamp_ns).toBe(modelRunStartNs + Number((node.startUs - profile.modelRun.startUs) * 1000n));
    expect(op.shape).toEqual(node.outputs[0]?.shape);
    expect(op.dtype).toBe(traceDtype(node.outputs[0]?.ortType ?? ""));
    expect(op.device).toBe("cpu");
    expect(op.storage_bytes).toBe(node.outputBytes);
  }
}

describe("profileInference on onnxruntime-node", () => {
  it("captures one MLP run: ops equal the profile's nodes, outputs equal an unprofiled run, trace trusted", async () => {
    const model = mlpModel();
    const feeds = { x: input(3, 16) };
    const out = join(directory, "mlp.jsonl");
    const result = await profileInference(model, feeds, { warmup: 2, out, keepProfile: true });
    try {
      expect(result.tracePath).toBe(out);
      // Two warm-ups in a bare session, one in the profiling session, then the captured run.
      expect(result.warmupNs).toHaveLength(2);
      expect(result.profiledWarmupNs).toHaveLength(1);
      expect(result.profile.runCount).toBe(2);
      expect(result.profile.index).toBe(2);
      // Profiling does not change the numbers.
      expect((result.outputs.y as ort.Tensor).data).toEqual(await bareOutputs(model, feeds));

      const trace = await parseTrace(out);
      const health = analyzeHealth(trace);
      expect(health.issues.filter((issue) => issue.severity === "error")).toEqual([]);
      expect(health.trusted).toBe(true);
      expect(trace.run.phase).toBe("infer");
      expect(trace.run.capture_step).toBe(4);
      expect(trace.run.warmup_steps).toBe(3);

      const modelRun = trace.spans.find((span) => span.name === "model_run");
      const measured = trace.spans.find((span) => span.measured);
      expect(modelRun?.step).toBe("forward");
      expect(modelRun?.parent_id).toBe(measured?.id);
      expect(modelRun?.duration_ns).toBe(Number(result.profile.modelRun.durationUs * 1000n));
      expectOpsMatchProfile(trace, result.profile, Number(modelRun?.start_ns ?? 0));
      expect(trace.ops.length).toBeGreaterThanOrEqual(3);

      // Scopes of the node names become module spans.
      const modules = trace.spans.filter((span) => span.kind === "module").map((span) => span.name);
      expect(modules).toEqual(expect.arrayContaining(["encoder", "head"]));

      // Tensor checkpoints for the model input and output, with the shapes of this run.
      expect(
        trace.tensors.map((tensor) => [tensor.tensor_id, tensor.shape, tensor.dtype, tensor.storage_bytes]),
      ).toEqual([
        ["x", [3, 16], "f32", 3 * 16 * 4],
        ["y", [3, 4], "f32", 3 * 4 * 4],
      ]);
      // Initializers are parameters with their full size; node outputs are activations.
      const parameters = new Map(
        trace.memory
          .filter((event) => event.category === "parameter")
          .map((event) => [event.tensor_id, event.bytes]),
      );
      expect(Object.fromEntries(parameters)).toEqual({
        "encoder.fc1.weight": 16 * 32 * 4,
        "encoder.fc1.bias": 32 * 4,
        "head.fc2.weight": 32 * 4 * 4,
        "head.fc2.bias": 4 * 4,
      });
      const activations = trace.memory.filter((event) => event.category === "activation");
      expect(activations.map((event) => event.tensor_id)).toContain("y");
      expect(activations.find((event) => event.tensor_id === "y")?.bytes).toBe(3 * 4 * 4);
      expect(trace.memory.every((event) => event.action === "alloc")).toBe(true);
      // One allocator checkpoint before the first node and one after each node.
      expect(trace.device_memory).toHaveLength(result.profile.nodes.length + 1);
      const last = result.profile.nodes[result.profile.nodes.length - 1];
      expect(trace.device_memory.at(-1)?.used_bytes).toBe(last?.allocator?.bytesInUse);
      expect(trace.device_memory.at(-1)?.reserved_bytes).toBe(last?.allocator?.arenaHeld);
    } finally {
      if (result.profilePath !== undefined) rmSync(result.profilePath, { force: true });
    }
  });

  it("runs every warm-up in the profiling session when asked, capturing the run after them", async () => {
    const result = await profileInference(
      mlpModel(),
      { x: input(2, 16) },
      { warmup: 3, warmupOn: "profiling-session" },
    );
    expect(result.warmupNs).toEqual([]);
    expect(result.profiledWarmupNs).toHaveLength(3);
    expect(result.profile.runCount).toBe(4);
    const trace = parseTraceText(result.traceText ?? "");
    expect(trace.run.capture_step).toBe(4);
    expect(analyzeHealth(trace).trusted).toBe(true);
  });

  it("shows a branch and a residual as nested module spans, not a flat list", async () => {
    const result = await profileInference(branchResidualModel(), { x: input(2, 24) }, { warmup: 1 });
    const trace = parseTraceText(result.traceText ?? "");
    expect(analyzeHealth(trace).trusted).toBe(true);
    const byId = new Map(trace.spans.map((span) => [span.id, span]));
    const parentName = (name: string) =>
      byId.get(trace.spans.find((span) => span.name === name)?.parent_id ?? "")?.name;
    for (const branch of ["block/left", "block/right", "block/merge", "block/residual"]) {
      expect(parentName(branch)).toBe("block");
    }
    expect(parentName("/block/left/Tanh")).toBe("block/left");
    expect(parentName("/block/right/Sigmoid")).toBe("block/right");
    expect(parentName("/block/residual/Add")).toBe("block/residual");
    const residual = trace.ops.find((op) => op.op_name === "Add");
    expect(residual?.inputs).toEqual(["gated", "x"]);
    expect(residual?.output).toBe("y");
    expect(residual?.input_storage_bytes).toBe(2 * (2 * 24 * 4));
    expect((result.outputs.y as ort.Tensor).data).toEqual(
      await bareOutputs(branchResidualModel(), { x: input(2, 24) }),
    );
  });

  it("captures a later run of an existing session with a new batch size, and leaves no profile behind", async () => {
    const profiling = profilingSessionOptions(directory);
    const session = await ort.InferenceSession.create(mlpModel(), {
      enableProfiling: profiling.enableProfiling,
      profileFilePrefix: profiling.profileFilePrefix,
    });
    try {
      await session.run({ x: input(1, 16) });
      await session.run({ x: input(2, 16) });
      const captured = await captureSessionRun(
        session,
        { x: input(5, 16, 3) },
        {
          profileFilePrefix: profiling.profileFilePrefix,
          captureRun: 3,
        },
      );
      const trace = parseTraceText(captured.traceText ?? "");
      expect(analyzeHealth(trace).trusted).toBe(true);
      expect(captured.profile.runCount).toBe(3);
      // Every op of the captured run has the batch of that run.
      for (const op of trace.ops) expect(op.shape[0]).toBe(5);
      expect(trace.tensors.find((tensor) => tensor.tensor_id === "x")?.shape).toEqual([5, 16]);
      // Without the optimized model the ops carry no tensor names but still their sizes.
      expect(trace.ops.every((op) => op.inputs.length === 0 && op.output === undefined)).toBe(true);
      expect(readdirSync(profiling.directory)).toEqual([]);
    } finally {
      await session.release();
      rmSync(profiling.directory, { recursive: true, force: true });
    }
  });

  it("removes its temporary directory; a kept profile moves beside the trace", async () => {
    const before = new Set(readdirSync(tmpdir()).filter((name) => name.startsWith("cg-onnxruntime-")));
    const out = join(directory, "kept.jsonl");
    const result = await profileInference(
      mlpModel(),
      { x: input(4, 16) },
      { warmup: 1, keepProfile: true, out },
    );
    const after = readdirSync(tmpdir()).filter(
      (name) => name.startsWith("cg-onnxruntime-") && !before.has(name),
    );
    expect(after).toEqual([]);
    expect(result.profilePath).toBe(join(directory, "kept.ort-profile.json"));
    expect(existsSync(result.profilePath ?? "")).toBe(true);
    expect((await readOrtProfile(result.profilePath ?? "")).runCount).toBe(2);
  });
});

describe("readOrtProfile on real profiles", () => {
  it("selects runs by number and keeps each run's own shapes", async () => {
    const profiling = profilingSessionOptions(directory);
    const session = await ort.InferenceSession.create(mlpModel(), {
      enableProfiling: true,
      profileFilePrefix: profiling.profileFilePrefix,
    });
    for (const batch of [1, 2, 7]) await session.run({ x: input(batch, 16) });
    session.endProfiling();
    await session.release();
    const [file] = readdirSync(profiling.directory);
    const path = join(profiling.directory, file ?? "");
    for (const [run, batch] of [
      [1, 1],
      [2, 2],
      [3, 7],
    ] as const) {
      const profile = await readOrtProfile(path, { run });
      expect(profile.index).toBe(run);
      expect(profile.runCount).toBe(3);
      expect(profile.nodes.length).toBeGreaterThan(0);
      for (const node of profile.nodes) expect(node.outputs[0]?.shape[0]).toBe(batch);
    }
    expect((await readOrtProfile(path)).index).toBe(3);
    await expect(readOrtProfile(path, { run: 4 })).rejects.toThrow(
      /run 4 requested, but the profile holds 3 runs/,
    );
  });
});

import { analyzeHealth, parseTraceText, type TraceDocument } from "@cg/parser";
import { type ProfileRun, TraceSession } from "@cg/writer";
import * as tf from "@tensorflow/tfjs";
import { beforeAll, describe, expect, it } from "vitest";
import { createDemoModel } from "./demo-workload.js";
import { TfjsProfiler } from "./tfjs-profiler.js";

function inMemoryProfiler(captureStep: number) {
  let session: TraceSession<import("@cg/writer").MemorySink> | undefined;
  const profiler = TfjsProfiler.training({
    captureStep,
    openSession: (run: ProfileRun) => {
      session = TraceSession.inMemory(run);
      return session;
    },
    onError: (error) => {
      throw error;
    },
  });
  return { profiler, document: (): TraceDocument => parseTraceText(session?.sink.text() ?? "") };
}

const engineHooks = ["runKernel", "trackTensor", "removeDataId", "gradients"] as const;

beforeAll(async () => {
  await tf.setBackend("cpu");
});

describe("TfjsProfiler training capture", () => {
  it("captures exactly the configured step as a trusted trace with one op per kernel call", async () => {
    const demo = createDemoModel({ seed: 3 });
    const { profiler, document } = inMemoryProfiler(2);
    const loss1 = profiler.trainStep({ optimizer: demo.optimizer, loss: demo.loss, variables: demo.variables });
    loss1.dispose();
    const buffersBefore = tf.memory().numDataBuffers;
    let kernelNames: string[] = [];
    const profile = await tf.profile(() => {
      const loss = profiler.trainStep({ optimizer: demo.optimizer, loss: demo.loss, variables: demo.variables });
      return loss;
    });
    (profile.result as tf.Tensor).dispose();
    const buffersAfter = tf.memory().numDataBuffers + 1; // the loss was disposed above
    kernelNames = profile.kernels.map((kernel) => kernel.name).filter((name) => tf.getKernel(name, "cpu") != null);
    profiler.trainStep({ optimizer: demo.optimizer, loss: demo.loss, variables: demo.variables }).dispose();

    const trace = document();
    const health = analyzeHealth(trace);
    expect(health.issues.filter((issue) => issue.severity === "error")).toEqual([]);
    expect(health.trusted).toBe(true);
    expect(trace.run.capture_step).toBe(2);
    expect(trace.run.warmup_steps).toBe(1);
    const steps = trace.spans.map((span) => span.step).filter((step) => step !== undefined);
    expect(steps).toEqual(["forward", "backward", "optimizer"]);
    expect(trace.spans.filter((span) => span.measured)).toHaveLength(1);

    // One op per kernel call, against tf.profile's own kernel list.
    expect(trace.ops.map((op) => op.op_name)).toEqual(kernelNames);
    expect(trace.ops.every((op) => op.device === "cpu")).toBe(true);
    const matMul = trace.ops.find((op) => op.op_name === "_FusedMatMul" || op.op_name === "BatchMatMul");
    expect(matMul?.inputs.length).toBeGreaterThanOrEqual(2);

    // Alloc/free pairs balance and agree with the engine's own buffer count.
    const summary = profiler.capture?.summary;
    expect(summary).toBeDefined();
    const allocs = trace.memory.filter((event) => event.action === "alloc");
    const frees = trace.memory.filter((event) => event.action === "free");
    expect(frees.length).toBeGreaterThan(0);
    const allocated = new Map(allocs.map((event) => [event.tensor_id, event]));
    for (const free of frees) {
      expect(allocated.get(free.tensor_id)?.bytes).toBe(free.bytes);
      expect(allocated.get(free.tensor_id)?.category).toBe(free.category);
    }
    expect(buffersAfter - buffersBefore).toBe(allocs.length - frees.length - (summary?.releasesOfEarlierBuffers ?? 0));
    const categories = new Set(trace.memory.map((event) => event.category));
    expect(categories).toEqual(new Set(["activation", "gradient", "optimizer", "parameter"]));

    // Trainable variables and their gradients are tensor events; one gradient fact per variable.
    const trainables = demo.model.trainableWeights.map((weight) => weight.read());
    const parameterTensors = trace.tensors.filter((tensor) => tensor.category === "parameter");
    expect(parameterTensors.map((tensor) => tensor.tensor_id).sort()).toEqual(
      trainables.map((variable) => `t${variable.id}`).sort(),
    );
    expect(parameterTensors.every((tensor) => tensor.requires_grad)).toBe(true);
    expect(trace.tensors.filter((tensor) => tensor.category === "gradient")).toHaveLength(trainables.length);
    expect(trace.gradients.map((gradient) => gradient.key).sort()).toEqual(trainables.map((v) => v.name).sort());
    expect(trace.device_memory.length).toBeGreaterThanOrEqual(4);

    for (const name of engineHooks) expect(Object.hasOwn(tf.engine(), name)).toBe(false);
    expect(Object.hasOwn(demo.optimizer, "applyGradients")).toBe(false);
    demo.dispose();
  });
});

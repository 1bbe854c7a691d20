import { analyzeHealth } from "@cg/parser";
import * as tf from "@tensorflow/tfjs";
import { beforeAll, describe, expect, it } from "vitest";
import { inMemoryProfiler } from "../test/in-memory-profiler.js";
import { createDemoModel } from "./demo-workload.js";

const engineHooks = ["runKernel", "trackTensor", "removeDataId", "gradients"] as const;

beforeAll(async () => {
  await tf.setBackend("cpu");
});

describe("TfjsProfiler training capture", () => {
  it("captures exactly the configured step as a trusted trace with one op per kernel call", async () => {
    const demo = createDemoModel({ seed: 3 });
    const { profiler, document } = inMemoryProfiler("training", 2);
    const loss1 = profiler.trainStep({
      optimizer: demo.optimizer,
      loss: demo.loss,
      variables: demo.variables,
    });
    loss1.dispose();
    const buffersBefore = tf.memory().numDataBuffers;
    let kernelNames: string[] = [];
    const profile = await tf.profile(() => {
      const loss = profiler.trainStep({
        optimizer: demo.optimizer,
        loss: demo.loss,
        variables: demo.variables,
      });
      return loss;
    });
    (profile.result as tf.Tensor).dispose();
    const buffersAfter = tf.memory().numDataBuffers + 1; // the loss was disposed above
    kernelNames = profile.kernels
      .map((kernel) => kernel.name)
      .filter((name) => tf.getKernel(name, "cpu") != null);
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
    expect(buffersAfter - buffersBefore).toBe(
      allocs.length - frees.length - (summary?.releasesOfEarlierBuffers ?? 0),
    );
    const categories = new Set(trace.memory.map((event) => event.category));
    expect(categories).toEqual(new Set(["activation", "gradient", "optimizer", "parameter"]));

    // Trainable variables and their gradients are tensor events; one gradient fact per variable.
    const trainables = demo.variables;
    const parameterTensors = trace.tensors.filter((tensor) => tensor.category === "parameter");
    expect(parameterTensors.map((tensor) => tensor.tensor_id).sort()).toEqual(
      trainables.map((variable) => `t${variable.id}`).sort(),
    );
    expect(parameterTensors.every((tensor) => tensor.requires_grad)).toBe(true);
    expect(trace.tensors.filter((tensor) => tensor.category === "gradient")).toHaveLength(trainables.length);
    expect(trace.gradients.map((gradient) => gradient.key).sort()).toEqual(
      trainables.map((v) => v.name).sort(),
    );
    expect(trace.device_memory.length).toBeGreaterThanOrEqual(4);

    for (const name of engineHooks) expect(Object.hasOwn(tf.engine(), name)).toBe(false);
    expect(Object.hasOwn(demo.optimizer, "applyGradients")).toBe(false);
    demo.dispose();
  });

  it("changes nothing: outputs and weights match an unprofiled run with the same seed", () => {
    const run = (profile: boolean) => {
      const demo = createDemoModel({ seed: 9, batchSize: 16 });
      const { profiler } = inMemoryProfiler("training", profile ? 2 : 99);
      const losses: number[] = [];
      for (let step = 1; step <= 3; step++) {
        const loss = profiler.trainStep({
          optimizer: demo.optimizer,
          loss: demo.loss,
          variables: demo.variables,
        });
        losses.push(loss.dataSync()[0] as number);
        loss.dispose();
      }
      const prediction = demo.model.predict(demo.inputs) as tf.Tensor;
      const outputs = Array.from(prediction.dataSync());
      prediction.dispose();
      const weights = demo.variables.map((variable) => Array.from(variable.dataSync()));
      expect(profiler.capture === undefined).toBe(!profile);
      demo.dispose();
      return { losses, outputs, weights };
    };
    const plain = run(false);
    const profiled = run(true);
    expect(profiled.losses).toEqual(plain.losses);
    expect(profiled.outputs).toEqual(plain.outputs);
    expect(profiled.weights).toEqual(plain.weights);
  });

  it("profiles a model.fit batch through fit callbacks", async () => {
    const demo = createDemoModel({ seed: 4, batchSize: 64, hidden: 16 });
    const { profiler, document } = inMemoryProfiler("training", 2);
    const history = await profiler.fit(demo.model, demo.inputs, demo.targets, {
      epochs: 1,
      batchSize: 16,
      shuffle: false,
      verbose: 0,
    });
    expect(history.history.loss).toHaveLength(1);
    expect(profiler.currentStep).toBe(4);
    const trace = document();
    const health = analyzeHealth(trace);
    expect(health.trusted).toBe(true);
    expect(health.issues.map((issue) => issue.code)).not.toContain("gradients_absent");
    const steps = trace.spans.map((span) => span.step).filter((step) => step !== undefined);
    expect(steps).toEqual(["forward", "backward", "optimizer"]);
    expect(trace.gradients.map((gradient) => gradient.key).sort()).toEqual(
      demo.variables.map((variable) => variable.name).sort(),
    );
    expect(
      trace.gradients.every((gradient) => gradient.state === "present" && gradient.root === demo.model.name),
    ).toBe(true);
    for (const name of engineHooks) expect(Object.hasOwn(tf.engine(), name)).toBe(false);
    demo.dispose();
  });
});

describe("TfjsProfiler inference capture", () => {
  it("captures model.predict with its kernels and memory", async () => {
    const demo = createDemoModel({ seed: 6, architecture: "conv", batchSize: 4, hidden: 16 });
    const { profiler, document } = inMemoryProfiler("inference", 2);
    let kernelCount = 0;
    for (let step = 1; step <= 3; step++) {
      if (step === 2) {
        const profile = await tf.profile(() =>
          profiler.inferenceStep(() => demo.model.predict(demo.inputs) as tf.Tensor),
        );
        kernelCount = profile.kernels.filter((kernel) => tf.getKernel(kernel.name, "cpu") != null).length;
        (profile.result as tf.Tensor).dispose();
      } else {
        profiler.inferenceStep(() => demo.model.predict(demo.inputs) as tf.Tensor).dispose();
      }
    }
    const trace = document();
    expect(trace.run.phase).toBe("infer");
    expect(analyzeHealth(trace).trusted).toBe(true);
    expect(trace.ops).toHaveLength(kernelCount);
    expect(trace.ops.map((op) => op.op_name)).toContain("FusedConv2D");
    const output = trace.ops[trace.ops.length - 1];
    expect(output?.shape).toEqual([4, 8]);
    expect(output?.dtype).toBe("f32");
    expect(trace.memory.every((event) => event.category === "activation")).toBe(true);
    expect(trace.spans.map((span) => span.step).filter((step) => step !== undefined)).toEqual(["forward"]);
    demo.dispose();
  });
});

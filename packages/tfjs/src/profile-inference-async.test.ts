// Async inference: a real tfjs-converter GraphModel run with executeAsync, and code that awaits
// readbacks between kernels. Every kernel of the step is recorded, nothing outside it, and the
// engine is restored when the promise settles — also when it rejects.
import { analyzeHealth, parseTraceText } from "@cg/parser";
import { ProfileRun, TraceSession } from "@cg/writer";
import * as tf from "@tensorflow/tfjs";
import { beforeAll, describe, expect, it } from "vitest";
import { inMemoryProfiler } from "../test/in-memory-profiler.js";
import { profileInferenceAsync } from "./profile-inference.js";

const engineHooks = ["runKernel", "trackTensor", "removeDataId", "gradients"] as const;

beforeAll(async () => {
  await tf.setBackend("cpu");
});

/** x[batch, 4] → MatMul(w[4, 3]) → BiasAdd(b[3]) → Relu: a converter-format graph held in memory. */
async function loadDenseGraphModel(): Promise<tf.GraphModel> {
  const float = { type: "DT_FLOAT" };
  const modelTopology = {
    node: [
      {
        name: "x",
        op: "Placeholder",
        attr: { dtype: float, shape: { shape: { dim: [{ size: "-1" }, { size: "4" }] } } },
      },
      { name: "w", op: "Const", attr: { dtype: float, value: { tensor: { dtype: "DT_FLOAT" } } } },
      { name: "b", op: "Const", attr: { dtype: float, value: { tensor: { dtype: "DT_FLOAT" } } } },
      {
        name: "mm",
        op: "MatMul",
        input: ["x", "w"],
        attr: { T: float, transpose_a: { b: false }, transpose_b: { b: false } },
      },
      { name: "add", op: "BiasAdd", input: ["mm", "b"], attr: { T: float, data_format: { s: "TkhXQw==" } } },
      { name: "out", op: "Relu", input: ["add"], attr: { T: float } },
    ],
    versions: { producer: 1 },
  };
  const weights = new Float32Array([
    ...Array.from({ length: 12 }, (_, index) => (index - 5) / 10),
    0.1,
    -0.2,
    0.3,
  ]);
  const handler = tf.io.fromMemory({
    modelTopology,
    format: "graph-model",
    weightSpecs: [
      { name: "w", shape: [4, 3], dtype: "float32" },
      { name: "b", shape: [3], dtype: "float32" },
    ],
    weightData: weights.buffer,
  });
  return tf.loadGraphModel(handler);
}

describe("async inference capture", () => {
  it("records every kernel of graphModel.executeAsync on the captured step, and only there", async () => {
    const model = await loadDenseGraphModel();
    const input = tf.tensor2d([1, 2, 3, 4, -1, 0.5, 2, 0], [2, 4]);
    const unprofiled = (await model.executeAsync(input)) as tf.Tensor;
    const expected = await unprofiled.data();
    unprofiled.dispose();

    const { profiler, text } = inMemoryProfiler("inference", 2);
    const outputs: Float32Array[] = [];
    let kernels: string[] = [];
    for (let step = 1; step <= 3; step++) {
      const run = () => model.executeAsync(input) as Promise<tf.Tensor>;
      if (step === 2) {
        const profile = await tf.profile(async () => {
          const output = await profiler.inferenceStepAsync(run);
          outputs.push((await output.data()) as Float32Array);
          output.dispose();
        });
        kernels = profile.kernels.map((kernel) => kernel.name);
      } else {
        const output = await profiler.inferenceStepAsync(run);
        outputs.push((await output.data()) as Float32Array);
        output.dispose();
        for (const name of engineHooks) expect(Object.hasOwn(tf.engine(), name)).toBe(false);
      }
    }
    for (const output of outputs) expect(Array.from(output)).toEqual(Array.from(expected));

    const trace = parseTraceText(text());
    expect(trace.run.phase).toBe("infer");
    expect(analyzeHealth(trace).trusted).toBe(true);
    // The ops are exactly the kernels tf.profile saw during the captured step.
    expect(trace.ops.map((op) => op.op_name)).toEqual(kernels);
    expect(trace.ops.map((op) => op.op_name)).toEqual(["BatchMatMul", "Add", "Relu"]);
    const last = trace.ops[trace.ops.length - 1];
    expect(last?.shape).toEqual([2, 3]);
    expect(trace.spans.map((span) => span.step).filter((step) => step !== undefined)).toEqual(["forward"]);
    for (const name of engineHooks) expect(Object.hasOwn(tf.engine(), name)).toBe(false);
    input.dispose();
    model.dispose();
  });

  it("keeps recording across awaited readbacks between kernels", async () => {
    const { profiler, document } = inMemoryProfiler("inference", 1);
    const x = tf.tensor1d([1, -2, 3]);
    const result = await profiler.inferenceStepAsync(async () => {
      const doubled = tf.mul(x, 2);
      const values = await doubled.data(); // the step yields to the event loop here
      const shifted = tf.add(doubled, values[1] ?? 0);
      doubled.dispose();
      return shifted;
    });
    expect(Array.from(await result.data())).toEqual([-2, -8, 2]);
    result.dispose();
    x.dispose();
    const trace = document();
    expect(trace.ops.map((op) => op.op_name)).toEqual(["Multiply", "Add"]);
    expect(analyzeHealth(trace).trusted).toBe(true);
  });

  it("restores the engine and closes the trace when the step rejects", async () => {
    const recorder = TraceSession.inMemory(ProfileRun.inference("tfjs::inference_step", 1, "cpu"));
    const failure = new Error("model failed");
    await expect(
      profileInferenceAsync(recorder, async () => {
        tf.tidy(() => tf.square(tf.scalar(3)));
        await Promise.resolve();
        throw failure;
      }),
    ).rejects.toBe(failure);
    for (const name of engineHooks) expect(Object.hasOwn(tf.engine(), name)).toBe(false);
    recorder.finish();
    const trace = parseTraceText(recorder.sink.text());
    expect(trace.ops.map((op) => op.op_name)).toEqual(["Square"]);
    expect(trace.spans.every((span) => span.closed)).toBe(true);
  });
});

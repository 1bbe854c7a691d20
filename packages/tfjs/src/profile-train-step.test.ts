import { analyzeHealth, parseTraceText } from "@cg/parser";
import { ProfileRun, TraceSession } from "@cg/writer";
import * as tf from "@tensorflow/tfjs";
import { beforeAll, describe, expect, it } from "vitest";
import { createDemoModel } from "./demo-workload.js";
import { profileTrainStep } from "./profile-train-step.js";
import { TfjsProfiler } from "./tfjs-profiler.js";

const engineHooks = ["runKernel", "trackTensor", "removeDataId", "gradients"] as const;

function expectNoHooks(optimizer: tf.Optimizer): void {
  for (const name of engineHooks) expect(Object.hasOwn(tf.engine(), name)).toBe(false);
  expect(Object.hasOwn(optimizer, "applyGradients")).toBe(false);
}

beforeAll(async () => {
  await tf.setBackend("cpu");
});

describe("profileTrainStep with plain variables", () => {
  it("reports norms equal to tfjs's own, and missing, zero and non-finite gradients for real", () => {
    const weights = tf.variable(tf.randomNormal([6, 3], 0, 1, "float32", 11), true, "plain/weights");
    const bias = tf.variable(tf.randomNormal([3], 0, 1, "float32", 12), true, "plain/bias");
    const cut = tf.variable(tf.ones([4]), true, "plain/cut");
    const zeroed = tf.variable(tf.ones([2, 2]), true, "plain/zeroed");
    const broken = tf.variable(tf.tensor1d([-1, -4]), true, "plain/broken");
    const variables = [weights, bias, cut, zeroed, broken];
    const inputs = tf.randomNormal([5, 6], 0, 1, "float32", 13);
    const targets = tf.randomNormal([5, 3], 0, 1, "float32", 14);
    const loss = () =>
      tf.tidy(() => {
        const fit = tf.losses.meanSquaredError(targets, tf.add(tf.matMul(inputs, weights), bias));
        // zeroed reaches the loss through a zero factor; broken through sqrt of negatives (NaN gradient).
        const zeroTerm = tf.mul(0, tf.sum(zeroed));
        const nanTerm = tf.mul(0, tf.sum(tf.sqrt(broken)));
        return tf.add(
          tf.add(fit, zeroTerm),
          tf.where(tf.isNaN(nanTerm), tf.zerosLike(nanTerm), nanTerm),
        ) as tf.Scalar;
      });

    const independent = tf.variableGrads(loss, variables);
    const expectedNorms = new Map(
      Object.entries(independent.grads).map(([name, gradient]) => [
        name,
        tf.norm(gradient).dataSync()[0] as number,
      ]),
    );
    tf.dispose(independent);

    const optimizer = tf.train.sgd(0.1);
    const session = TraceSession.inMemory(ProfileRun.training("plain::update", 1, "cpu"));
    const profiled = profileTrainStep(session, { optimizer, loss, variables, gradientRoot: "plain" });
    profiled.result.dispose();
    session.finish();
    expect(profiled.captureError).toBeUndefined();

    const trace = parseTraceText(session.sink.text());
    expect(analyzeHealth(trace).trusted).toBe(true);
    const facts = new Map(trace.gradients.map((gradient) => [gradient.key, gradient]));
    expect(trace.gradients.every((gradient) => gradient.root === "plain")).toBe(true);
    expect(facts.get("plain/cut")?.state).toBe("missing");
    expect(facts.get("plain/cut")?.norm).toBeUndefined();
    expect(facts.get("plain/zeroed")?.state).toBe("zero");
    expect(facts.get("plain/zeroed")?.norm).toBe(0);
    expect(facts.get("plain/broken")?.state).toBe("non_finite");
    for (const name of ["plain/weights", "plain/bias"]) {
      expect(facts.get(name)?.state).toBe("present");
      const expected = expectedNorms.get(name) as number;
      expect(expected).toBeGreaterThan(0);
      expect(Math.abs((facts.get(name)?.norm as number) - expected) / expected).toBeLessThan(1e-5);
    }
    expect(trace.gradients).toHaveLength(variables.length);
    expectNoHooks(optimizer);
    tf.dispose([...variables, inputs, targets]);
    optimizer.dispose();
  });

  it("removes every hook and closes every span when the step throws", () => {
    const variable = tf.variable(tf.ones([3]), true, "throwing/v");
    const optimizer = tf.train.sgd(0.1);
    const session = TraceSession.inMemory(ProfileRun.training("throwing::update", 1, "cpu"));
    const failure = new Error("loss exploded");
    expect(() =>
      profileTrainStep(session, {
        optimizer,
        variables: [variable],
        loss: () => {
          tf.sum(tf.square(variable));
          throw failure;
        },
      }),
    ).toThrow(failure);
    expectNoHooks(optimizer);
    session.finish();
    const trace = parseTraceText(session.sink.text());
    const health = analyzeHealth(trace);
    expect(health.trusted).toBe(true);
    // The kernels that ran before the throw (plus the tape's Identity copies) are recorded.
    const names = trace.ops.map((op) => op.op_name);
    expect(names.filter((name) => name !== "Identity")).toEqual(["Square", "Sum"]);
    expect(trace.spans.find((span) => span.step === "forward")?.closed).toBe(true);
    // Ordinary tfjs still works afterwards, uninstrumented.
    expect(tf.add(tf.scalar(1), tf.scalar(2)).dataSync()[0]).toBe(3);
    variable.dispose();
    optimizer.dispose();
  });
});

describe("capture gate", () => {
  it("instruments only the captured step of a loop", () => {
    const demo = createDemoModel({ seed: 5, batchSize: 8, hidden: 16 });
    let session: TraceSession | undefined;
    const profiler = TfjsProfiler.training({
      captureStep: 3,
      openSession: (run) => {
        session = TraceSession.inMemory(run);
        return session;
      },
    });
    const hooked: boolean[] = [];
    const loss = () => {
      hooked.push(Object.hasOwn(tf.engine(), "runKernel"));
      return demo.loss();
    };
    for (let step = 1; step <= 4; step++) {
      profiler.trainStep({ optimizer: demo.optimizer, loss, variables: demo.variables }).dispose();
    }
    expect(hooked).toEqual([false, false, true, false]);
    expect(profiler.currentStep).toBe(4);
    expect(profiler.capture?.summary.ops).toBeGreaterThan(0);
    const trace = parseTraceText((session as TraceSession<import("@cg/writer").MemorySink>).sink.text());
    expect(trace.run.capture_step).toBe(3);
    expect(trace.run.warmup_steps).toBe(2);
    expectNoHooks(demo.optimizer);
    demo.dispose();
  });
});

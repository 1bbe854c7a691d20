import type { GradientState } from "@cg/schema/core";
import type { TraceRecorder } from "@cg/writer";
import { InstrumentedOps, type TrackedTensor } from "./instrumented-ops.js";
import { SeededRandom } from "./seeded-random.js";
import {
  addBias,
  l2Norm,
  matmul,
  relu,
  reluBackward,
  sgdMomentumUpdate,
  softmaxCrossEntropy,
  sumRows,
} from "./tensor-kernels.js";

export interface MlpConfig {
  samples: number;
  features: number;
  hidden: number;
  classes: number;
  batch: number;
  learningRate: number;
  momentum: number;
  seed: number;
}

export const DEFAULT_MLP_CONFIG: MlpConfig = {
  samples: 1024,
  features: 64,
  hidden: 128,
  classes: 8,
  batch: 128,
  learningRate: 0.05,
  momentum: 0.9,
  seed: 20240805,
};

interface Parameter {
  name: string;
  data: Float32Array;
  shape: number[];
  velocity: Float32Array;
}

export interface StepResult {
  loss: number;
  gradientNorms: Record<string, number>;
}

/** Names the root of the gradient facts (like a VarBuilder prefix). */
export const PARAMETER_ROOT = "mlp";

function gradientState(norm: number): GradientState {
  if (!Number.isFinite(norm)) return "non_finite";
  return norm === 0 ? "zero" : "present";
}

/**
 * A two-layer perceptron (features → hidden ReLU → classes, softmax cross-entropy) trained with SGD
 * with momentum on a synthetic, seeded classification task: labels come from a fixed random teacher
 * network, so the loss really falls. One `trainStep` is a genuine forward pass, backward pass and
 * optimizer update over one mini-batch.
 */
export class MlpTrainer {
  readonly config: MlpConfig;
  readonly #inputs: Float32Array;
  readonly #labels: Int32Array;
  readonly #parameters: Parameter[];

  constructor(config: MlpConfig = DEFAULT_MLP_CONFIG) {
    this.config = config;
    const random = new SeededRandom(config.seed);
    const { samples, features, hidden, classes } = config;
    this.#inputs = Float32Array.from({ length: samples * features }, () => random.normal());
    const teacher = Float32Array.from({ length: features * classes }, () => random.normal());
    const teacherLogits = matmul(this.#inputs, teacher, samples, features, classes);
    this.#labels = Int32Array.from({ length: samples }, (_, row) => {
      let best = 0;
      for (let column = 1; column < classes; column += 1) {
        if (teacherLogits[row * classes + column]! > teacherLogits[row * classes + best]!) best = column;
      }
      return best;
    });
    const init = (fanIn: number, length: number) =>
      Float32Array.from({ length }, () => random.normal() * Math.sqrt(2 / fanIn));
    const parameter = (name: string, shape: number[], data: Float32Array): Parameter => ({
      name,
      shape,
      data,
      velocity: new Float32Array(data.length),
    });
    this.#parameters = [
      parameter("layer1.weight", [features, hidden], init(features, features * hidden)),
      parameter("layer1.bias", [hidden], new Float32Array(hidden)),
      parameter("layer2.weight", [hidden, classes], init(hidden, hidden * classes)),
      parameter("layer2.bias", [classes], new Float32Array(classes)),
    ];
  }

  /** Bytes of all parameters (what a real framework keeps resident between steps). */
  get parameterBytes(): number {
    return this.#parameters.reduce((sum, parameter) => sum + parameter.data.byteLength, 0);
  }

  /**
   * One training update on mini-batch `step` (one-based), recorded into `trace`: the caller has
   * opened the measured span; this opens the forward, backward and optimizer step spans.
   */
  trainStep(trace: TraceRecorder, step: number, device: string, name: string): StepResult {
    const { features, hidden, classes, batch, samples, learningRate, momentum } = this.config;
    const ops = new InstrumentedOps(trace, device);
    const [w1, b1, w2, b2] = this.#parameters.map((parameter) =>
      ops.declare(parameter.name, parameter.data, parameter.shape, "parameter", true),
    ) as [TrackedTensor, TrackedTensor, TrackedTensor, TrackedTensor];
    const offset = ((step - 1) * batch) % samples;
    const labels = this.#labels.subarray(offset, offset + batch);
    const dataset: TrackedTensor = {
      id: "dataset.inputs",
      data: this.#inputs,
      shape: [samples, features],
      category: "other",
    };

    // Forward.
    const forward = trace.beginStepSpan(`${name}/forward`, "forward");
    ops.enter(forward, "forward");
    const x = ops.run("gather_batch", [dataset], [batch, features], () =>
      this.#inputs.slice(offset * features, (offset + batch) * features),
    );
    const z1Linear = ops.run("matmul", [x, w1], [batch, hidden], () =>
      matmul(x.data, w1.data, batch, features, hidden),
    );
    const z1 = ops.run("add", [z1Linear, b1], [batch, hidden], () =>
      addBias(z1Linear.data, b1.data, batch, hidden),
    );
    ops.free(z1Linear);
    const a1 = ops.run("relu", [z1], [batch, hidden], () => relu(z1.data));
    const z2Linear = ops.run("matmul", [a1, w2], [batch, classes], () =>
      matmul(a1.data, w2.data, batch, hidden, classes),
    );
    const z2 = ops.run("add", [z2Linear, b2], [batch, classes], () =>
      addBias(z2Linear.data, b2.data, batch, classes),
    );
    ops.free(z2Linear);
    let loss = 0;
    const dz2 = ops.run("softmax_cross_entropy", [z2], [batch, classes], () => {
      const result = softmaxCrossEntropy(z2.data, labels, batch, classes);
      loss = result.loss;
      return result.gradient;
    });
    forward.end();

    // Backward: activations are released as soon as their gradients no longer need them.
    const backward = trace.beginStepSpan(`${name}/backward`, "backward");
    ops.enter(backward, "backward");
    ops.free(z2);
    const dw2 = ops.run("matmul_at_b", [a1, dz2], [hidden, classes], () =>
      matmul(a1.data, dz2.data, hidden, batch, classes, true, false),
    );
    const db2 = ops.run("sum_rows", [dz2], [classes], () => sumRows(dz2.data, batch, classes));
    const da1 = ops.run("matmul_a_bt", [dz2, w2], [batch, hidden], () =>
      matmul(dz2.data, w2.data, batch, classes, hidden, false, true),
    );
    ops.free(dz2, a1);
    const dz1 = ops.run("relu_backward", [da1, z1], [batch, hidden], () => reluBackward(da1.data, z1.data));
    ops.free(da1, z1);
    const dw1 = ops.run("matmul_at_b", [x, dz1], [features, hidden], () =>
      matmul(x.data, dz1.data, features, batch, hidden, true, false),
    );
    const db1 = ops.run("sum_rows", [dz1], [hidden], () => sumRows(dz1.data, batch, hidden));
    ops.free(dz1, x);
    const gradients = [dw1, db1, dw2, db2];
    const gradientNorms: Record<string, number> = {};
    this.#parameters.forEach((parameter, index) => {
      const norm = l2Norm(gradients[index]!.data);
      gradientNorms[parameter.name] = norm;
      trace.recordGradient(PARAMETER_ROOT, parameter.name, gradientState(norm), norm);
    });
    backward.end();

    // Optimizer: in-place SGD with momentum; the gradients are released afterwards.
    const optimizer = trace.beginStepSpan(`${name}/optimizer`, "optimizer");
    ops.enter(optimizer, "optimizer");
    this.#parameters.forEach((parameter, index) => {
      const target = [w1, b1, w2, b2][index]!;
      const gradient = gradients[index]!;
      const velocity = ops.declare(
        `${parameter.name}.momentum`,
        parameter.velocity,
        parameter.shape,
        "optimizer",
        false,
      );
      ops.update("sgd_momentum", target, [gradient, velocity], () =>
        sgdMomentumUpdate(parameter.data, gradient.data, parameter.velocity, learningRate, momentum),
      );
    });
    ops.free(...gradients); // spread-ok: one gradient per model variable
    optimizer.end();
    return { loss, gradientNorms };
  }
}

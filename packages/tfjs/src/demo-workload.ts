import type { ProfileRun, TraceRecorder } from "@cg/writer";
import * as tf from "@tensorflow/tfjs";
import type { TfjsCapture } from "./tfjs-profiler.js";
import { TfjsProfiler } from "./tfjs-profiler.js";
import { TfjsProfilerError } from "./tfjs-profiler-error.js";

export type DemoArchitecture = "dense" | "conv";

export interface DemoModelOptions {
  architecture?: DemoArchitecture | undefined;
  /** Seeds the weight initialisers and the synthetic data; same seed, same numbers. */
  seed?: number | undefined;
  batchSize?: number | undefined;
  /** Width of the hidden dense layers; default 64. */
  hidden?: number | undefined;
  /** Hidden dense layers after the input block; default 1. */
  depth?: number | undefined;
}

/** A small real tfjs model with its optimizer and one fixed synthetic batch. Dispose when done. */
export interface DemoModel {
  model: tf.Sequential;
  optimizer: tf.Optimizer;
  inputs: tf.Tensor;
  targets: tf.Tensor;
  /** The model's trainable variables (what `minimize` should update). */
  variables: tf.Variable[];
  /** Mean squared error of the model on the batch (for `optimizer.minimize`). */
  loss: () => tf.Scalar;
  dispose(): void;
}

/** Builds the demo network: dense 32→64→64→8 (`depth` hidden layers), or a 16×16 conv net; Adam on MSE. */
export function createDemoModel(options: DemoModelOptions = {}): DemoModel {
  const seed = options.seed ?? 7;
  const batchSize = options.batchSize ?? 32;
  const hidden = options.hidden ?? 64;
  const architecture = options.architecture ?? "dense";
  const initializer = (offset: number) => tf.initializers.glorotUniform({ seed: seed * 101 + offset });
  const model = tf.sequential();
  let inputShape: number[];
  if (architecture === "conv") {
    inputShape = [16, 16, 1];
    model.add(
      tf.layers.conv2d({
        inputShape,
        filters: 8,
        kernelSize: 3,
        activation: "relu",
        kernelInitializer: initializer(1),
      }),
    );
    model.add(tf.layers.maxPooling2d({ poolSize: 2 }));
    model.add(tf.layers.flatten());
  } else {
    inputShape = [32];
    model.add(
      tf.layers.dense({ inputShape, units: hidden, activation: "relu", kernelInitializer: initializer(1) }),
    );
  }
  const depth = options.depth ?? 1;
  for (let layer = 0; layer < depth; layer++) {
    model.add(
      tf.layers.dense({ units: hidden, activation: "relu", kernelInitializer: initializer(2 + layer) }),
    );
  }
  model.add(tf.layers.dense({ units: 8, kernelInitializer: initializer(2 + depth) }));
  const optimizer = tf.train.adam(0.01);
  model.compile({ optimizer, loss: "meanSquaredError" });
  const inputs = tf.randomNormal([batchSize, ...inputShape], 0, 1, "float32", seed);
  const targets = tf.randomUniform([batchSize, 8], -1, 1, "float32", seed + 1);
  const loss = () => tf.losses.meanSquaredError(targets, model.apply(inputs) as tf.Tensor) as tf.Scalar;
  return {
    model,
    optimizer,
    inputs,
    targets,
    variables: model.trainableWeights.map((weight) => weight.read() as tf.Variable),
    loss,
    dispose: () => {
      model.dispose();
      optimizer.dispose();
      inputs.dispose();
      targets.dispose();
    },
  };
}

export interface TfjsDemoOptions extends DemoModelOptions {
  /** Trace file to write (parent directories are created). Give this or `openSession` (which wins). */
  outPath?: string | undefined;
  /**
   * Opens the captured step's session instead of a file at `outPath` (e.g. `TraceSession.inMemory`,
   * or a session wrapped to record extra evidence); passed to `TfjsProfiler.training`.
   */
  openSession?: ((run: ProfileRun) => TraceRecorder) | undefined;
  /** Training steps to run; default 4. */
  steps?: number | undefined;
  /** One-based step to capture; default 2. */
  captureStep?: number | undefined;
  /** Extra `meta.tags`. */
  tags?: Readonly<Record<string, string>> | undefined;
}

export interface TfjsDemoResult {
  /**
   * The trace file (`outPath`); with `openSession`, where that session wrote (what its `finish()`
   * returned; empty when no step was captured).
   */
  path: string;
  /** Loss of every step, in order. */
  losses: number[];
  capture: TfjsCapture | undefined;
}

/**
 * Trains the demo model for `steps` steps on the tfjs CPU backend and writes a trace of `captureStep`.
 * Leaves no tensors or variables behind.
 */
export async function runTfjsDemo(options: TfjsDemoOptions): Promise<TfjsDemoResult> {
  const { outPath, openSession } = options;
  if (outPath === undefined && openSession === undefined) {
    throw new TfjsProfilerError({ code: "invalid_option", message: "give either outPath or openSession" });
  }
  await tf.ready();
  const steps = options.steps ?? 4;
  const captureStep = options.captureStep ?? 2;
  const architecture = options.architecture ?? "dense";
  const demo = createDemoModel(options);
  const profiler = TfjsProfiler.training({
    captureStep,
    ...(openSession === undefined ? { path: outPath } : { openSession }),
    entrypoint: `tfjs-demo::${architecture}`,
    gradientRoot: demo.model.name,
    tags: {
      architecture,
      batch_size: String(options.batchSize ?? 32),
      ...options.tags,
    },
    onError: (error) => {
      throw error;
    },
  });
  const losses: number[] = [];
  try {
    for (let step = 1; step <= steps; step++) {
      const loss = profiler.trainStep({
        optimizer: demo.optimizer,
        loss: demo.loss,
        variables: demo.variables,
      });
      losses.push((await loss.data())[0] as number);
      loss.dispose();
    }
  } finally {
    demo.dispose();
  }
  const capture = profiler.capture;
  const path = openSession === undefined ? (outPath as string) : (capture?.location ?? "");
  return { path, losses, capture };
}

import { renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseTrace, readColumnBatches, type TraceDocument } from "@cg/parser";
import { CaptureGate, ProfileRun, TraceSession } from "@cg/writer";
import { temporaryPathFor, writeFileAtomic } from "../atomic-write.js";
import { CliError } from "../cli-error.js";
import { ExitCode } from "../exit-codes.js";
import { ensureDirectory } from "../output-target.js";
import { convertBatchesToPerfetto } from "../perfetto/perfetto-convert.js";
import type { DemoModelKind } from "./demo-models.js";
import { DeviceMemoryCheckpoints, type DeviceMemoryStatus } from "./device-memory-checkpoints.js";
import { DEFAULT_MLP_CONFIG, MlpTrainer } from "./mlp-trainer.js";

export { DEMO_MODELS, type DemoModelKind } from "./demo-models.js";

export interface DemoOptions {
  outDir: string;
  /** Which workload to train (default `tfjs`). */
  model?: DemoModelKind;
  /** Training steps to run; the last one is captured unless `captureStep` says otherwise. */
  steps?: number;
  captureStep?: number;
  /** Sample NVIDIA GPUs through NVML when present (default true). */
  gpu?: boolean;
  /** Written into the Perfetto file's `otherData.converter`. */
  converter?: string;
}

export interface DemoResult {
  model: DemoModelKind;
  tracePath: string;
  perfettoPath: string;
  /** Present when @cg/report provides `renderReport`. */
  reportPath?: string;
  document: TraceDocument;
  losses: number[];
  deviceMemory: DeviceMemoryStatus;
}

export const DEMO_ENTRYPOINT = "demo::mlp::train_step";
/** The entrypoint of the tfjs demo (`runTfjsDemo` with the dense architecture). */
export const TFJS_DEMO_ENTRYPOINT = "tfjs-demo::dense";

type RenderReport = (document: TraceDocument, options?: Record<string, unknown>) => string;

interface Captured {
  losses: number[];
  deviceMemory: DeviceMemoryStatus;
}

/** The pure-TypeScript MLP: forward, backward and SGD over typed arrays, host RSS (and NVML) checkpoints. */
function captureMlp(path: string, steps: number, captureStep: number, gpu: boolean): Captured {
  const trainer = new MlpTrainer();
  const { batch, features, hidden, classes } = trainer.config;
  const run = ProfileRun.training(DEMO_ENTRYPOINT, captureStep, "cpu")
    .tag("model", `mlp-${features}-${hidden}-${classes}`)
    .tag("batch_size", String(batch))
    .tag("precision", "f32")
    .tag("optimizer", `sgd(lr=${DEFAULT_MLP_CONFIG.learningRate},momentum=${DEFAULT_MLP_CONFIG.momentum})`)
    .tag("seed", String(DEFAULT_MLP_CONFIG.seed));
  const deviceMemory = new DeviceMemoryCheckpoints(gpu);
  const gate = new CaptureGate(captureStep, () => TraceSession.open(path, run));
  const losses: number[] = [];
  try {
    for (let step = 1; step <= steps; step += 1) {
      const trace = gate.step(step);
      const name = `mlp/update-${String(step).padStart(12, "0")}`;
      deviceMemory.record(trace);
      const measured = trace.beginMeasurement(name);
      const result = trainer.trainStep(trace, step, "cpu", name);
      measured.end();
      deviceMemory.record(trace);
      losses.push(result.loss);
      if (gate.isCapturing) trace.finish();
    }
  } finally {
    deviceMemory.close();
  }
  return { losses, deviceMemory: deviceMemory.status };
}

/**
 * A real TensorFlow.js model (dense 32 → 64 → 64 → 8, Adam on mean squared error, CPU backend)
 * through `@cg/tfjs`. Loaded on demand so that the other commands never pay for TensorFlow.js.
 * The tfjs profiler records `tf.memory()` as device `cpu`; NVIDIA GPUs, when present, are sampled
 * through NVML when the captured step's session opens and right before it finishes.
 */
/**
 * TensorFlow.js is an optional peer dependency: reading traces never needs it, only this demo.
 * When it is missing the demo says how to get it instead of failing on the import.
 */
function importTensorFlow(): Promise<{
  tf: typeof import("@tensorflow/tfjs");
  adapter: typeof import("@cg/tfjs");
}> {
  return importOptional(
    async () => ({ tf: await import("@tensorflow/tfjs"), adapter: await import("@cg/tfjs") }),
    "the tfjs demo needs TensorFlow.js and @cg/tfjs, which are not installed: run " +
      "`npm install @tensorflow/tfjs@4 @cg/tfjs` beside @cg/cli, or use `cg-trace demo --model mlp`, which needs nothing more",
  );
}

/** Loads an optional peer dependency; when it is not installed, a usage error says how to get it. */
async function importOptional<Loaded>(load: () => Promise<Loaded>, howToInstall: string): Promise<Loaded> {
  try {
    return await load();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") throw error;
    throw new CliError({ message: howToInstall, exitCode: ExitCode.Usage, cause: error });
  }
}

async function captureTfjs(
  path: string,
  steps: number,
  captureStep: number,
  gpu: boolean,
): Promise<Captured> {
  const {
    tf,
    adapter: { runTfjsDemo },
  } = await importTensorFlow();
  await tf.setBackend("cpu");
  // PROD silences the "install tfjs-node" banner on the backend's first use; it changes no kernel
  // and no result. The previous value comes back afterwards.
  const prod = tf.env().getBool("PROD");
  tf.env().set("PROD", true);
  const deviceMemory = new DeviceMemoryCheckpoints(gpu);
  let losses: number[];
  try {
    ({ losses } = await runTfjsDemo({
      openSession: (run) => withGpuCheckpoints(TraceSession.open(path, run), deviceMemory),
      steps,
      captureStep,
      architecture: "dense",
      tags: { model: "tfjs-dense-32-64-64-8", precision: "f32", optimizer: "adam(lr=0.01)", seed: "7" },
    }));
  } finally {
    tf.env().set("PROD", prod);
    deviceMemory.close();
  }
  return { losses, deviceMemory: deviceMemory.status };
}

/**
 * A real ONNX Runtime inference (onnxruntime-node, CPU): the small text encoder, `steps - 1`
 * warm-up runs, the last run captured. Loaded on demand, like TensorFlow.js. An inference has no
 * loss, so none is reported; the allocator's figures are the device-memory checkpoints.
 */
async function captureOnnx(path: string, steps: number): Promise<Captured> {
  // onnxruntime-node is an optional peer dependency, like TensorFlow.js.
  await importOptional(
    () => import("onnxruntime-node"),
    "the onnx demo needs onnxruntime-node, which is not installed: run " +
      "`ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node` beside @cg/cli (the variable skips its optional GPU download)",
  );
  const { runOnnxruntimeDemo } = await import("@cg/onnxruntime");
  await runOnnxruntimeDemo({ outPath: path, warmup: steps - 1 });
  return {
    losses: [],
    deviceMemory: {
      gpuDevices: [],
      gpuUnavailableReason: "the ONNX demo runs on the CPU execution provider",
    },
  };
}

/** Records a GPU checkpoint into `session` now and again right before its `finish()`. */
function withGpuCheckpoints(session: TraceSession, deviceMemory: DeviceMemoryCheckpoints): TraceSession {
  deviceMemory.recordGpus(session);
  const finish = session.finish.bind(session);
  session.finish = () => {
    deviceMemory.recordGpus(session);
    return finish();
  };
  return session;
}

/**
 * Trains the demo model (by default the TensorFlow.js one) for a few steps, capturing one of them
 * (by default the last, after the warm-up steps) into `<outDir>/application.jsonl`, then writes
 * `<outDir>/trace.perfetto.json` and, when the report package offers it, `<outDir>/report.html`.
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const model = options.model ?? "tfjs";
  const steps = options.steps ?? 2;
  const captureStep = options.captureStep ?? steps;
  ensureDirectory(options.outDir);
  const tracePath = join(options.outDir, "application.jsonl");
  const temporaryTrace = temporaryPathFor(tracePath);
  let captured: Captured;
  try {
    captured =
      model === "tfjs"
        ? await captureTfjs(temporaryTrace, steps, captureStep, options.gpu ?? true)
        : model === "onnx"
          ? await captureOnnx(temporaryTrace, steps)
          : captureMlp(temporaryTrace, steps, captureStep, options.gpu ?? true);
    renameSync(temporaryTrace, tracePath);
  } catch (error) {
    rmSync(temporaryTrace, { force: true });
    throw error;
  }
  const { losses, deviceMemory } = captured;

  const document = await parseTrace(tracePath);
  const perfettoPath = join(options.outDir, "trace.perfetto.json");
  await writeFileAtomic(perfettoPath, (write) =>
    convertBatchesToPerfetto(
      readColumnBatches(tracePath),
      write,
      options.converter === undefined ? {} : { converter: options.converter },
    ),
  );
  const result: DemoResult = { model, tracePath, perfettoPath, document, losses, deviceMemory };
  // Loaded dynamically so that a report package without `renderReport` still lets the demo run.
  const report = (await import("@cg/report")) as Record<string, unknown>;
  const renderReport = report.renderReport as RenderReport | undefined;
  if (typeof renderReport === "function") {
    const reportPath = join(options.outDir, "report.html");
    const html = renderReport(document, {});
    await writeFileAtomic(reportPath, (write) => write(html));
    result.reportPath = reportPath;
  }
  return result;
}

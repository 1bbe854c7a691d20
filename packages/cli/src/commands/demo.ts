import { relative, resolve } from "node:path";
import type { Command } from "../command.js";
import { DEMO_MODELS, type DemoModelKind } from "../demo/demo-models.js";
import type { DemoResult } from "../demo/run-demo.js";
import { ExitCode } from "../exit-codes.js";
import { createStyle } from "../format/style.js";
import { asOutputError, prepareOutputDirectory } from "../output-target.js";
import { booleanOption, choiceOption, positiveIntegerOption, stringOption } from "../parse-command-args.js";
import { renderSummary } from "../views/render-summary.js";
import { buildSummaryView } from "../views/summary-view.js";

const MODEL_DESCRIPTIONS: Record<DemoModelKind, string> = {
  tfjs: "the TensorFlow.js model (dense 32 → 64 → 64 → 8, Adam)",
  mlp: "the TypeScript MLP (64 → 128 → 8, SGD)",
  onnx: "the ONNX text encoder on onnxruntime-node (inference)",
};

export const demoCommand: Command = {
  name: "demo",
  summary: "train a small TensorFlow.js model, capture one step, print its summary, write Perfetto JSON",
  arguments: [],
  options: {
    model: { type: "string", valueName: "M", description: "tfjs, mlp or onnx (default tfjs)" },
    out: {
      type: "string",
      valueName: "DIR",
      description: "output directory (default ./cg-trace-out, relative to the current directory)",
    },
    steps: {
      type: "string",
      valueName: "N",
      description: "training steps, the last one captured (default 2, at least 2)",
    },
    "no-gpu": { type: "boolean", description: "do not look for NVIDIA GPUs" },
  },
  help: `Trains a small model on seeded synthetic data for a few steps; step 1 is a warm-up (not
recorded) and the last step is captured with forward, backward and optimizer spans, ops, tensors,
alloc/free events, gradient norms and device-memory checkpoints. Then prints the trace's summary.

Models (--model):
  tfjs  (default) a real TensorFlow.js network on the pure-JS CPU backend, profiled through
        @cg/tfjs: dense 32 → 64 ReLU → 64 ReLU → 8, mean squared error, Adam (lr 0.01). Ops are
        the tfjs kernels; device-memory checkpoints are tf.memory().numBytes as device "cpu",
        plus NVIDIA GPUs through NVML (when present) at the start and end of the captured step.
        The new weights and Adam moments outlive the step, so health shows one
        retained_allocations warning (still trusted).
  mlp   a two-layer perceptron written in TypeScript (64 → 128 ReLU → 8, softmax cross-entropy,
        SGD with momentum) over typed arrays, every allocation freed; device-memory checkpoints
        are the process's RSS as device "cpu", plus NVIDIA GPUs through NVML when present.
  onnx  inference, not training: a small ONNX text encoder (token embeddings, attention mask,
        dense 32 → 32 tanh with a residual) run by onnxruntime-node on the CPU and profiled
        through @cg/onnxruntime. The first steps - 1 runs are warm-ups, the last run is
        captured: model_run, the node-name scopes as module spans, one op per executed node,
        the arena's figures as device-memory checkpoints, parameter and activation allocations
        (ONNX Runtime shows no frees, so health warns retained_allocations; still trusted).

Writes:
  <dir>/application.jsonl     the candle-graph/trace/6 trace
  <dir>/trace.perfetto.json   Chrome trace-event JSON for https://ui.perfetto.dev
  <dir>/report.html           when the report package is installed

Exit codes: 0 done, 2 usage error or a file that cannot be written.`,
  async run(args, context) {
    const model = choiceOption(args, "demo", "model", DEMO_MODELS, "tfjs");
    const outDir = resolve(context.cwd, stringOption(args, "out") ?? "cg-trace-out");
    const steps = Math.max(2, positiveIntegerOption(args, "demo", "steps", 2));
    const shown = relative(context.cwd, outDir) || ".";
    const userOut = stringOption(args, "out") ?? "cg-trace-out";
    // Fail before training, not after it, when the folder cannot be written.
    prepareOutputDirectory(outDir, userOut);
    context.stderr(
      model === "onnx"
        ? `running ${MODEL_DESCRIPTIONS[model]}: ${steps - 1} warm-up run(s), one more with the profiler on, then the captured run…\n`
        : `training ${MODEL_DESCRIPTIONS[model]} for ${steps} steps, capturing step ${steps}…\n`,
    );
    // Loaded here: the writer, the probe and the models are the demo's alone.
    const { runDemo } = await import("../demo/run-demo.js");
    let result: DemoResult;
    try {
      result = await runDemo({
        outDir,
        model,
        steps,
        gpu: !booleanOption(args, "no-gpu"),
        converter: `cg-trace ${context.version}`,
      });
    } catch (error) {
      throw asOutputError(error, userOut);
    }
    const style = createStyle(context.color);
    const tracePath = relative(context.cwd, result.tracePath);
    context.stdout(`${renderSummary(buildSummaryView(result.document, tracePath), style)}\n`);
    const losses = result.losses.length === 0 ? "" : result.losses.map((loss) => loss.toFixed(4)).join(" → ");
    const { gpuDevices, gpuUnavailableReason } = result.deviceMemory;
    const gpuNote =
      gpuDevices.length > 0
        ? `GPU memory sampled through NVML: ${gpuDevices.join(", ")}`
        : `no GPU memory sampled (${gpuUnavailableReason ?? "no NVIDIA GPU"})`;
    const memoryNote =
      model === "onnx"
        ? `device "cpu" is ONNX Runtime's CPU arena: the bytes in use and the bytes it holds`
        : model === "tfjs"
          ? `${gpuNote}\ndevice "cpu" is tf.memory().numBytes, the bytes held by live tfjs tensors`
          : gpuDevices.length > 0
            ? gpuNote
            : `${gpuNote}; device "cpu" is the process's memory`;
    const files = [
      `  trace:    ${tracePath}`,
      `  perfetto: ${relative(context.cwd, result.perfettoPath)}  (open at https://ui.perfetto.dev)`,
    ];
    if (result.reportPath !== undefined)
      files.push(`  report:   ${relative(context.cwd, result.reportPath)}`);
    context.stdout(
      `${style.bold("Demo")} (${model}): ${losses === "" ? "one inference captured" : `loss per step ${losses}`}\n${memoryNote}\n${style.bold("Files")} in ${shown}:\n${files.join("\n")}\n`,
    );
    return ExitCode.Ok;
  },
};

import { relative, resolve } from "node:path";
import type { Command } from "../command.js";
import { runDemo } from "../demo/run-demo.js";
import { ExitCode } from "../exit-codes.js";
import { createStyle } from "../format/style.js";
import { booleanOption, positiveIntegerOption, stringOption } from "../parse-command-args.js";
import { renderSummary } from "../views/render-summary.js";
import { buildSummaryView } from "../views/summary-view.js";

export const demoCommand: Command = {
  name: "demo",
  summary: "train a small MLP in TypeScript, capture one step, print its summary, write Perfetto JSON",
  usage: "demo [--out <dir>] [--steps N] [--no-gpu]",
  help: `Trains a two-layer perceptron (64 → 128 ReLU → 8, softmax cross-entropy, SGD with momentum)
on seeded synthetic data with real forward, backward and optimizer passes on typed arrays. Step 1
is a warm-up (not recorded); the last step is captured through a capture gate with forward,
backward and optimizer spans, ops, tensors, alloc/free events, gradient norms and device-memory
checkpoints (the process as device "cpu"; NVIDIA GPUs through NVML when present).

Writes:
  <dir>/application.jsonl     the candle-graph/trace/6 trace
  <dir>/trace.perfetto.json   Chrome trace-event JSON for https://ui.perfetto.dev
  <dir>/report.html           when the report package is installed

Options:
  --out DIR    output directory (default ./cg-trace-out)
  --steps N    training steps, the last one captured (default 2, at least 2)
  --no-gpu     do not look for NVIDIA GPUs

Exit codes: 0 done, 2 usage error or a file that cannot be written.`,
  options: { out: { type: "string" }, steps: { type: "string" }, "no-gpu": { type: "boolean" } },
  positionals: { min: 0, max: 0 },
  async run(args, context) {
    const outDir = resolve(context.cwd, stringOption(args, "out") ?? "cg-trace-out");
    const steps = Math.max(2, positiveIntegerOption(args, "demo", "steps", 2));
    const shown = relative(context.cwd, outDir) || ".";
    context.stderr(`training the demo MLP for ${steps} steps, capturing step ${steps}…\n`);
    const result = await runDemo({
      outDir,
      steps,
      gpu: !booleanOption(args, "no-gpu"),
      converter: `cg-trace ${context.version}`,
    });
    const style = createStyle(context.color);
    const tracePath = relative(context.cwd, result.tracePath);
    context.stdout(`${renderSummary(buildSummaryView(result.document, tracePath), style)}\n`);
    const losses = result.losses.map((loss) => loss.toFixed(4)).join(" → ");
    const gpu =
      result.deviceMemory.gpuDevices.length > 0
        ? `GPU memory sampled through NVML: ${result.deviceMemory.gpuDevices.join(", ")}`
        : `no GPU memory sampled (${result.deviceMemory.gpuUnavailableReason ?? "no NVIDIA GPU"}); device "cpu" is the process's memory`;
    const files = [
      `  trace:    ${tracePath}`,
      `  perfetto: ${relative(context.cwd, result.perfettoPath)}  (open at https://ui.perfetto.dev)`,
    ];
    if (result.reportPath !== undefined)
      files.push(`  report:   ${relative(context.cwd, result.reportPath)}`);
    context.stdout(
      `${style.bold("Demo")}: loss per step ${losses}\n${gpu}\n${style.bold("Files")} in ${shown}:\n${files.join("\n")}\n`,
    );
    return ExitCode.Ok;
  },
};

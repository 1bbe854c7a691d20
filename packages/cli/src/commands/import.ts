import { resolve } from "node:path";
import { CliError, UsageError } from "../cli-error.js";
import type { Command } from "../command.js";
import { ExitCode } from "../exit-codes.js";
import { escapeControl } from "../format/escape-control.js";
import { outputFileOption } from "../option-specs.js";
import { writeOutput } from "../output-target.js";
import { choiceOption, positiveIntegerOption, stringOption } from "../parse-command-args.js";

const SOURCES = ["onnxruntime"] as const;

export const importCommand: Command = {
  name: "import",
  summary: "convert another profiler's file (an ONNX Runtime profile) into a trace",
  arguments: [
    { name: "profile", description: "the profile file (ONNX Runtime: the .json endProfiling() wrote)" },
  ],
  options: {
    from: {
      type: "string",
      valueName: "FORMAT",
      description: "the profile's format: onnxruntime (required)",
    },
    output: outputFileOption("the trace"),
    run: {
      type: "string",
      valueName: "N",
      description: "which session.run of the profile, from 1 (default: the last)",
    },
    model: {
      type: "string",
      valueName: "FILE",
      description:
        "the optimized model the session saved (optimizedModelFilePath): tensor names, parameters, model inputs and outputs",
    },
  },
  help: `
ONNX Runtime writes a profile when a session created with { enableProfiling: true } ends
profiling: a JSON array with one event per line. The file is streamed and only the chosen run is
kept. The trace has the run's model_run as its measured span, the executor, the scopes of the node
names as module spans, one op per executed node (ONNX op type, shapes, dtypes, µs × 1000 exactly),
the allocator's figures as device-memory checkpoints and the nodes' outputs as activation
allocations. A file that is not an ONNX Runtime profile (a Chrome/Perfetto JSON object, a PyTorch
Kineto trace, a binary Perfetto trace, a truncated file) is refused with the reason and the line.
Times are exact for every whole number of µs up to 2^64 − 1; an event whose time cannot sit on
the trace clock (beyond 2^53 − 1 ns from the run's start) is refused with its line. Node events
logged with the run but starting outside its model_run window (concurrent runs) are written
outside model_run, counted in the output and a warning, and tagged ort_out_of_window_node_events;
the trace is then untrusted (validate exits 1).

Exit codes: 0 written, 2 usage error or a profile that cannot be read.`,
  async run(args, context) {
    choiceOption(args, "import", "from", SOURCES);
    const output = stringOption(args, "output");
    if (output === undefined)
      throw new UsageError({ message: "import: -o/--output <trace.jsonl> is required" });
    const run =
      stringOption(args, "run") === undefined ? undefined : positiveIntegerOption(args, "import", "run", 1);
    const profilePath = resolve(context.cwd, args.positionals[0]!);
    const model = stringOption(args, "model");
    // Loaded here, so that the other commands never load the ONNX model reader.
    const { importOrtProfile, OrtProfileError } = await import("@cg/onnxruntime");
    const { result, kind } = await writeOutput(output, context, async (write) => {
      try {
        return await importOrtProfile(profilePath, {
          write,
          run,
          modelPath: model === undefined ? undefined : resolve(context.cwd, model),
        });
      } catch (error) {
        if (OrtProfileError.isInstance(error)) {
          // The message names the resolved path; the user knows the file by the name they typed.
          const message = error.message.replaceAll(profilePath, args.positionals[0]!);
          throw new CliError({
            message: `import: ${escapeControl(message)}`,
            exitCode: ExitCode.Usage,
            cause: error,
          });
        }
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT" || code === "EACCES" || code === "EISDIR") {
          const path = (error as NodeJS.ErrnoException).path ?? profilePath;
          throw new CliError({
            message: `import: cannot read ${escapeControl(path)}: ${code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : "is a directory"}`,
            exitCode: ExitCode.Usage,
            cause: error,
          });
        }
        throw error;
      }
    });
    const report = kind === "file" ? context.stdout : context.stderr;
    const { summary, profile } = result;
    const outside = summary.outOfWindowNodes;
    report(
      `wrote ${escapeControl(output)}: run ${profile.index} of ${profile.runCount}, ${summary.ops} ops, ${summary.spans} spans, ` +
        `${summary.memoryEvents} memory events, ${summary.deviceMemorySamples} device-memory checkpoints, ${summary.tensors} tensors` +
        `${outside === 0 ? "" : `, ${outside} node event${outside === 1 ? "" : "s"} outside model_run`}\n`,
    );
    if (outside > 0) {
      const lines = profile.outOfWindow.slice(0, 5).map((node) => node.line);
      context.stderr(
        `cg-trace: import: warning: ${escapeControl(args.positionals[0]!)}: ${outside} node event${outside === 1 ? "" : "s"} of run ${profile.index} ` +
          `(line${lines.length === 1 ? "" : "s"} ${lines.join(", ")}${outside > lines.length ? ", …" : ""}) start${outside === 1 ? "s" : ""} outside its model_run window; ` +
          `written where ONNX Runtime put ${outside === 1 ? "it" : "them"}, outside model_run, so the trace is not trusted (tag ort_out_of_window_node_events)\n`,
      );
    }
    const unassigned = profile.unassignedNodes;
    if (unassigned > 0) {
      context.stderr(
        `cg-trace: import: warning: ${escapeControl(args.positionals[0]!)}: ${unassigned} node event${unassigned === 1 ? "" : "s"} after the profile's last model_run belong${unassigned === 1 ? "s" : ""} to no run and ${unassigned === 1 ? "is" : "are"} in no trace (tag ort_unassigned_node_events)\n`,
      );
    }
    return ExitCode.Ok;
  },
};

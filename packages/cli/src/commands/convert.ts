import { UsageError } from "../cli-error.js";
import type { Command } from "../command.js";
import { ExitCode } from "../exit-codes.js";
import { escapeControl } from "../format/escape-control.js";
import { outputFileOption, traceArgument } from "../option-specs.js";
import { writeOutput } from "../output-target.js";
import { choiceOption, stringOption } from "../parse-command-args.js";
import { convertBatchesToPerfetto } from "../perfetto/perfetto-convert.js";
import { streamTraceBatches } from "../trace-input.js";

export const convertCommand: Command = {
  name: "convert",
  summary: "convert a trace to Chrome trace-event JSON for ui.perfetto.dev / chrome://tracing",
  arguments: [traceArgument],
  options: {
    to: {
      type: "string",
      valueName: "FORMAT",
      description:
        "output format: perfetto (default; Chrome trace-event JSON for Perfetto and chrome://tracing)",
    },
    output: outputFileOption("the trace-event JSON"),
  },
  help: `
The trace is streamed: memory use does not grow with the file size. Spans become nested slices
on the "spans" track(s), ops get their own "ops" track(s), logical memory per device and category
and device memory used/free/reserved become counters. Times are microseconds since capture start.

Open the file at https://ui.perfetto.dev ("Open trace file") or in chrome://tracing ("Load").
Exit codes: 0 written, 2 usage error or a trace that does not parse.`,
  async run(args, context) {
    const tracePath = args.positionals[0]!;
    choiceOption(args, "convert", "to", ["perfetto"], "perfetto");
    const output = stringOption(args, "output");
    if (output === undefined)
      throw new UsageError({ message: "convert: -o/--output <file.json> is required" });
    const { result: stats, kind } = await writeOutput(output, context, (write) =>
      convertBatchesToPerfetto(streamTraceBatches(tracePath, context), write, {
        converter: `cg-trace ${context.version}`,
      }),
    );
    // Written to stdout, a pipe or a device (maybe stdout itself): the report goes to stderr.
    const report = kind === "file" ? context.stdout : context.stderr;
    const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? "" : "s"}`;
    report(
      `wrote ${escapeControl(output)}: ${plural(stats.spans, "span")} on ${plural(stats.spanTracks, "track")}, ` +
        `${plural(stats.ops, "op")}, ${plural(stats.memoryEvents, "memory event")}, ` +
        `${plural(stats.deviceMemorySamples, "device-memory sample")}\n` +
        "open it at https://ui.perfetto.dev (Open trace file) or chrome://tracing\n",
    );
    return ExitCode.Ok;
  },
};

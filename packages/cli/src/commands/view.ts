import { basename } from "node:path";
import { TraceParseError } from "@cg/parser";
import { UsageError } from "../cli-error.js";
import type { Command } from "../command.js";
import { ExitCode } from "../exit-codes.js";
import { escapeControl } from "../format/escape-control.js";
import { formatBytesShort } from "../format/units.js";
import { outputFileOption, traceArgument } from "../option-specs.js";
import { writeOutput } from "../output-target.js";
import { stringOption } from "../parse-command-args.js";
import { asCliError, rereadableTrace } from "../trace-input.js";

export const viewCommand: Command = {
  name: "view",
  summary: "write a self-contained offline HTML report of a trace (timeline, span costs, memory, gradients)",
  arguments: [traceArgument],
  options: {
    output: outputFileOption("the HTML report"),
    baseline: {
      type: "string",
      valueName: "TRACE",
      description: "add a Comparison view: per-path deltas and the memory delta against TRACE",
    },
    title: { type: "string", valueName: "TEXT", description: "page title (default: the entrypoint)" },
  },
  help: `
The report is one HTML file with no external URL, script or font: open it from disk in any current
browser, offline. Views: Overview (provenance, health verdict with every issue and gap, measured
total, findings), Timeline (zoomable flame chart with ops), Span costs, Memory, Gradients and, with
--baseline, Comparison. Untrusted traces still get a report; it says so at the top.
Traces of any size are read as streams (twice each), so memory follows the number of spans, not
the file's size; large traces are aggregated or downsampled where needed, and the report says where.
Exit codes: 0 written, 2 usage error or a trace that does not parse.`,
  async run(args, context) {
    const tracePath = args.positionals[0]!;
    const output = stringOption(args, "output");
    if (output === undefined)
      throw new UsageError({ message: "view: -o/--output <report.html> is required" });
    const baselinePath = stringOption(args, "baseline");
    const title = stringOption(args, "title");
    // Streamed, twice per trace: memory follows the number of spans, not the file's size.
    const candidate = rereadableTrace(tracePath, context);
    const baseline = baselinePath === undefined ? undefined : rereadableTrace(baselinePath, context);
    // Loaded here: the report's page builder is this command's alone.
    const { renderStreamedReport } = await import("@cg/report");
    let html: string;
    try {
      html = await renderStreamedReport(candidate.read, {
        label: basename(tracePath),
        read: candidate.options,
        ...(title === undefined ? {} : { title }),
        ...(baseline === undefined || baselinePath === undefined
          ? {}
          : {
              baseline: baseline.read,
              baselineLabel: basename(baselinePath),
              baselineRead: baseline.options,
            }),
      });
    } catch (error) {
      const file = TraceParseError.isInstance(error) ? error.file : undefined;
      throw asCliError(error, file ?? tracePath);
    }
    const { kind } = await writeOutput(output, context, (write) => write(html));
    const report = kind === "file" ? context.stdout : context.stderr;
    report(
      `wrote ${escapeControl(output)} (${formatBytesShort(Buffer.byteLength(html))})\nopen it in any browser; it works offline\n`,
    );
    return ExitCode.Ok;
  },
};

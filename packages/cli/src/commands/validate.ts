import type { TraceParseError } from "@cg/parser";
import type { Command } from "../command.js";
import { ExitCode } from "../exit-codes.js";
import { escapeControl } from "../format/escape-control.js";
import { createStyle } from "../format/style.js";
import { traceArgument } from "../option-specs.js";
import { booleanOption } from "../parse-command-args.js";
import { formatParseError, streamCheck, workersOption, workersOptionSpec } from "../trace-input.js";

export const validateCommand: Command = {
  name: "validate",
  summary: "check that a trace parses and is structurally trusted; diagnostics as file:line: code: message",
  arguments: [traceArgument],
  options: {
    lenient: {
      type: "boolean",
      description:
        "skip undecodable lines, out-of-order events and a truncated last line (a killed writer) instead of stopping; each is reported, and the rest is checked",
    },
    workers: workersOptionSpec,
  },
  help: `Reads the trace strictly (like the reference reader) and checks its health.
Each problem is printed as "file:line: code: message" (health issues have no line: "file: code: message").

Exit codes: 0 valid and trusted,
            1 valid but untrusted (health errors), or read only by skipping lines in --lenient mode,
            2 usage error, unreadable file or a trace that does not parse.`,
  async run(args, context) {
    const path = args.positionals[0]!;
    const shown = escapeControl(path);
    const style = createStyle(context.color);
    const lenient = booleanOption(args, "lenient");
    const workers = workersOption(args, "validate");
    const skipped: TraceParseError[] = [];
    // Streamed: memory follows the span count, not the file size.
    const { health, notes } = await streamCheck(
      path,
      context,
      lenient ? { mode: "lenient", onDiagnostic: (diagnostic) => skipped.push(diagnostic) } : {},
      workers,
    );
    for (const diagnostic of skipped) context.stdout(`${formatParseError(diagnostic, path)}\n`);
    for (const note of notes) context.stdout(`${path}: note: ${note}\n`);
    for (const issue of health.issues) {
      const severity = issue.severity === "error" ? style.bad("error") : style.warn("warning");
      context.stdout(`${shown}: ${issue.code}: ${severity}: ${escapeControl(issue.message)}\n`);
    }
    const errors = health.issues.filter((issue) => issue.severity === "error").length;
    const warnings = health.issues.length - errors;
    const verdict = health.trusted ? style.good("trusted") : style.bad("untrusted");
    const skippedNote = skipped.length > 0 ? `, ${skipped.length} line(s) skipped` : "";
    context.stdout(
      `${shown}: valid, ${verdict} (${errors} error(s), ${warnings} warning(s)${skippedNote})\n`,
    );
    return health.trusted && skipped.length === 0 ? ExitCode.Ok : ExitCode.Failure;
  },
};

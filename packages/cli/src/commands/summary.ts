import type { Command } from "../command.js";
import { ExitCode } from "../exit-codes.js";
import { stringifyJson } from "../format/json-output.js";
import { createStyle } from "../format/style.js";
import { booleanOption, positiveIntegerOption } from "../parse-command-args.js";
import { loadTrace } from "../trace-input.js";
import { renderSummary } from "../views/render-summary.js";
import { buildSummaryView } from "../views/summary-view.js";

export const summaryCommand: Command = {
  name: "summary",
  summary: "provenance, health, measured time, top spans and ops, memory, device memory and gradients",
  usage: "summary <trace> [--json] [--limit N]",
  help: `Options:
  --json       machine-readable output (schema "cg-trace/summary/1"); u64 values above 2^53
               are written as exact JSON integers
  --limit N    rows in the span and op tables (default 10)

Exit codes: 0 printed (also for untrusted traces: the verdict is in the output),
            2 usage error or a trace that does not parse.`,
  options: { json: { type: "boolean" }, limit: { type: "string" } },
  positionals: { min: 1, max: 1 },
  async run(args, context) {
    const path = args.positionals[0]!;
    const limit = positiveIntegerOption(args, "summary", "limit", 10);
    const document = await loadTrace(path, context);
    const view = buildSummaryView(document, path, limit);
    context.stdout(
      booleanOption(args, "json")
        ? `${stringifyJson(view)}\n`
        : renderSummary(view, createStyle(context.color), limit),
    );
    return ExitCode.Ok;
  },
};

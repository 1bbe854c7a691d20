import type { Command } from "../command.js";
import { ExitCode } from "../exit-codes.js";
import { stringifyJson } from "../format/json-output.js";
import { createStyle } from "../format/style.js";
import { jsonOption, traceArgument } from "../option-specs.js";
import { booleanOption, positiveIntegerOption } from "../parse-command-args.js";
import { streamSummary, workersOption, workersOptionSpec } from "../trace-input.js";
import { renderSummary } from "../views/render-summary.js";
import { SummaryEvidence, summaryViewFromStream } from "../views/summary-view.js";

export const summaryCommand: Command = {
  name: "summary",
  summary: "provenance, health, measured time, top spans and ops, memory, device memory and gradients",
  arguments: [traceArgument],
  options: {
    json: jsonOption('machine-readable output (schema "cg-trace/summary/1")'),
    limit: {
      type: "string",
      valueName: "N",
      description:
        "rows in the span, op and operator tables, and allocations listed live at the peak (default 10; --json says how many were left out)",
    },
    workers: workersOptionSpec,
  },
  help: `Exit codes: 0 printed (also for untrusted traces: the verdict is in the output),
            2 usage error or a trace that does not parse.`,
  async run(args, context) {
    const path = args.positionals[0]!;
    const limit = positiveIntegerOption(args, "summary", "limit", 10);
    const workers = workersOption(args, "summary");
    // One streaming pass: memory follows the span count, not the file size.
    const evidence = new SummaryEvidence();
    const stream = await streamSummary(
      path,
      context,
      // One thread reads columns: its ops reach the operator table from the batches, no event objects.
      workers === 1
        ? {
            rankLimit: limit,
            onEvent: evidence.add,
            eventKinds: SummaryEvidence.kindsBesideOps,
            onBatch: evidence.addOps,
          }
        : { rankLimit: limit, onEvent: evidence.add, eventKinds: SummaryEvidence.kinds },
      workers,
    );
    const view = summaryViewFromStream(stream, evidence, path, limit);
    if (booleanOption(args, "json")) {
      context.stdout(`${stringifyJson(view)}\n`);
    } else {
      const notes = (view.notes ?? []).map((note) => `note: ${note}\n`).join("");
      context.stdout(`${renderSummary(view, createStyle(context.color), limit)}${notes}`);
    }
    return ExitCode.Ok;
  },
};

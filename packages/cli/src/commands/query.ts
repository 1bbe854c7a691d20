import { analyzeHealth, QUERY_KINDS, queryTrace } from "@cg/trace";
import type { Command } from "../command.js";
import { ExitCode } from "../exit-codes.js";
import { stringifyJson } from "../format/json-output.js";
import { createStyle } from "../format/style.js";
import { booleanOption, choiceOption, positiveIntegerOption } from "../parse-command-args.js";
import { loadTrace } from "../trace-input.js";
import { renderHealth } from "../views/render-health.js";
import { renderQuery } from "../views/render-query.js";

export const queryCommand: Command = {
  name: "query",
  summary: "one focused view: slowest, heaviest, memory, efficiency, spans, tensors or gradients",
  arguments: [{ name: "trace", description: "the trace file (.jsonl)" }],
  options: {
    kind: { type: "string", valueName: "K", description: `required: ${QUERY_KINDS.join(", ")}` },
    limit: { type: "string", valueName: "N", description: "rows for the ranked kinds (default 50)" },
    json: {
      type: "boolean",
      description: '{"health": ..., "result": ...}; u64 values above 2^53 are exact JSON integers',
    },
  },
  help: `Kinds:
  slowest     spans and ops by self time, with the measured total
  heaviest    spans and ops by output bytes, with the memory peak
  memory      memory timeline, live allocations at the peak, per-device peaks
  efficiency  ops by output bytes per nanosecond
  spans       every span (and edges)
  tensors     every tensor record
  gradients   every gradient fact with state counts

Exit codes: 0 printed, 2 usage error or a trace that does not parse.`,
  async run(args, context) {
    const path = args.positionals[0]!;
    const kind = choiceOption(args, "query", "kind", QUERY_KINDS);
    const limit = positiveIntegerOption(args, "query", "limit", 50);
    const document = await loadTrace(path, context);
    const health = analyzeHealth(document);
    const result = queryTrace(document, kind, { limit });
    if (booleanOption(args, "json")) {
      context.stdout(`${stringifyJson({ health, result })}\n`);
    } else {
      const style = createStyle(context.color);
      context.stdout(`${renderHealth(health, style)}\n${renderQuery(result, style)}`);
    }
    return ExitCode.Ok;
  },
};

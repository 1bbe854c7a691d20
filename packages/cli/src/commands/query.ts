import {
  OPERATOR_GROUP_FIELDS,
  type OperatorGroupField,
  QUERY_KINDS,
  type StreamedQueryResults,
} from "@cg/parser";
import { UsageError } from "../cli-error.js";
import type { Command } from "../command.js";
import { ExitCode } from "../exit-codes.js";
import { createStyle } from "../format/style.js";
import { jsonOption, traceArgument } from "../option-specs.js";
import { booleanOption, choiceOption, positiveIntegerOption, stringOption } from "../parse-command-args.js";
import { asCliError, streamQuery } from "../trace-input.js";
import { renderHealth } from "../views/render-health.js";
import { renderOperators } from "../views/render-operators.js";
import { renderQuery } from "../views/render-query.js";
import { writeStreamedJson } from "../views/streamed-json.js";
import { TEXT_ROWS, textRows } from "../views/text-rows.js";

const KINDS = [...QUERY_KINDS, "ops"] as const;

/** `--group-by shape,dtype` (or repeated words) as a list of group fields. */
export function groupByOption(command: string, text: string | undefined): OperatorGroupField[] {
  if (text === undefined) return [];
  const fields = text.split(/[,\s]+/).filter((field) => field !== "");
  for (const field of fields) {
    if (!(OPERATOR_GROUP_FIELDS as readonly string[]).includes(field)) {
      throw new UsageError({
        message: `${command}: --group-by takes ${OPERATOR_GROUP_FIELDS.join(", ")} (comma-separated), got "${field}"`,
      });
    }
  }
  return fields as OperatorGroupField[];
}

export const queryCommand: Command = {
  name: "query",
  summary: "one focused view: slowest, heaviest, memory, efficiency, spans, tensors, gradients or ops",
  arguments: [traceArgument],
  options: {
    kind: { type: "string", valueName: "K", description: `required: ${KINDS.join(", ")}` },
    "group-by": {
      type: "string",
      valueName: "FIELDS",
      description: `with --kind ops: also split rows by ${OPERATOR_GROUP_FIELDS.join(", ")} (comma-separated)`,
    },
    limit: { type: "string", valueName: "N", description: "rows for the ranked kinds (default 50)" },
    json: jsonOption('{"health": ..., "result": ...}'),
  },
  help: `Kinds:
  slowest     spans and ops by self time, with the measured total
  heaviest    spans and ops by output bytes, with the memory peak
  memory      memory timeline, live allocations at the peak, per-device peaks
  efficiency  ops by output bytes per nanosecond
  spans       every span (and edges)
  tensors     every tensor record
  gradients   every gradient fact with state counts
  ops         the operator table (like PyTorch's key_averages): per op name, optionally split by
              --group-by shape,dtype,device,path: calls, total, mean, min, p50, p95, max (exact
              nearest-rank percentiles), share of measured time, output and input bytes

Every kind streams the trace: memory follows what the kind must hold (a compact span table for
spans and --group-by path, 8 bytes per op for the operator percentiles), not the file size. Lists
that grow with the trace (timeline, spans, edges, tensors, gradients) are read again from the file
as they are written: --json writes every row; the text view lists at most ${TEXT_ROWS} rows of each
(the timeline evenly sampled) and says so in a note.

Exit codes: 0 printed, 2 usage error or a trace that does not parse.`,
  async run(args, context) {
    const path = args.positionals[0]!;
    const kind = choiceOption(args, "query", "kind", KINDS);
    const limit = positiveIntegerOption(args, "query", "limit", 50);
    const groupBy = groupByOption("query", stringOption(args, "group-by"));
    if (groupBy.length > 0 && kind !== "ops") {
      throw new UsageError({ message: "query: --group-by applies to --kind ops only" });
    }
    const stream = await streamQuery(path, context, kind, { limit, groupBy });
    const { health } = stream;
    try {
      if (booleanOption(args, "json")) {
        await writeStreamedJson({ health, result: stream.result }, context.stdout);
        return ExitCode.Ok;
      }
      const style = createStyle(context.color);
      const notes = [...stream.notes];
      let body: string;
      if (kind === "ops") {
        body = renderOperators(stream.result as StreamedQueryResults["ops"], style, "Operators");
      } else {
        const text = await textRows(stream.result as StreamedQueryResults[typeof kind]);
        for (const note of text.notes) notes.push(note);
        body = renderQuery(text.result, style);
      }
      context.stdout(
        `${renderHealth(health, style)}\n${body}${notes.map((note) => `note: ${note}\n`).join("")}`,
      );
      return ExitCode.Ok;
    } catch (error) {
      throw asCliError(error, path);
    }
  },
};

import {
  analyzeHealth,
  OPERATOR_GROUP_FIELDS,
  type OperatorGroupField,
  operatorTable,
  QUERY_KINDS,
  type QueryResults,
  queryTrace,
  type StreamSummary,
  u64ToBigInt,
} from "@cg/trace";
import { UsageError } from "../cli-error.js";
import type { Command } from "../command.js";
import { ExitCode } from "../exit-codes.js";
import { stringifyJson } from "../format/json-output.js";
import { createStyle } from "../format/style.js";
import { booleanOption, choiceOption, positiveIntegerOption, stringOption } from "../parse-command-args.js";
import { loadTrace, streamSummary } from "../trace-input.js";
import { renderHealth } from "../views/render-health.js";
import { renderOperators } from "../views/render-operators.js";
import { renderQuery } from "../views/render-query.js";

const KINDS = [...QUERY_KINDS, "ops"] as const;

/** The "slowest" or "heaviest" result of `queryTrace`, from a streamed summary with rankings. */
function streamedQuery(
  stream: StreamSummary,
  kind: "slowest" | "heaviest",
): QueryResults["slowest"] | QueryResults["heaviest"] {
  const rankings = stream.rankings;
  if (rankings === undefined) throw new Error("query: the stream was read without rankLimit");
  const base = { schema: "candle-graph/trace-query/1" as const, entrypoint: stream.run.entrypoint };
  if (kind === "slowest") {
    const total = stream.summary.total_ns;
    return {
      ...base,
      kind,
      total_ns: total,
      total_ms: Number(u64ToBigInt(total)) / 1e6,
      slowest_spans: rankings.slowest_spans,
      slowest_ops: rankings.slowest_ops,
    };
  }
  return {
    ...base,
    kind,
    peak_bytes: stream.memory.peak_bytes,
    heaviest_spans: rankings.heaviest_spans,
    heaviest_ops: rankings.heaviest_ops,
  };
}

/** `--group-by shape,dtype` (or repeated words) as a list of group fields. */
function groupByOption(text: string | undefined): OperatorGroupField[] {
  if (text === undefined) return [];
  const fields = text.split(/[,\s]+/).filter((field) => field !== "");
  for (const field of fields) {
    if (!(OPERATOR_GROUP_FIELDS as readonly string[]).includes(field)) {
      throw new UsageError({
        message: `query: --group-by takes ${OPERATOR_GROUP_FIELDS.join(", ")} (comma-separated), got "${field}"`,
      });
    }
  }
  return fields as OperatorGroupField[];
}

export const queryCommand: Command = {
  name: "query",
  summary: "one focused view: slowest, heaviest, memory, efficiency, spans, tensors or gradients",
  arguments: [{ name: "trace", description: "the trace file (.jsonl)" }],
  options: {
    kind: { type: "string", valueName: "K", description: `required: ${KINDS.join(", ")}` },
    "group-by": {
      type: "string",
      valueName: "FIELDS",
      description: `with --kind ops: also split rows by ${OPERATOR_GROUP_FIELDS.join(", ")} (comma-separated)`,
    },
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
  ops         the operator table (like PyTorch's key_averages): per op name, optionally split by
              --group-by shape,dtype,device,path: calls, total, mean, min, p50, p95, max (exact
              nearest-rank percentiles), share of measured time, output and input bytes

Exit codes: 0 printed, 2 usage error or a trace that does not parse.`,
  async run(args, context) {
    const path = args.positionals[0]!;
    const kind = choiceOption(args, "query", "kind", KINDS);
    const limit = positiveIntegerOption(args, "query", "limit", 50);
    const groupBy = groupByOption(stringOption(args, "group-by"));
    if (groupBy.length > 0 && kind !== "ops") {
      throw new UsageError({ message: "query: --group-by applies to --kind ops only" });
    }
    if (kind === "slowest" || kind === "heaviest") {
      // Ranked from one streaming pass: memory follows the span count, not the file size.
      const stream = await streamSummary(path, context, { rankLimit: limit });
      const result = streamedQuery(stream, kind);
      const health = stream.health;
      if (booleanOption(args, "json")) {
        context.stdout(`${stringifyJson({ health, result })}\n`);
      } else {
        const style = createStyle(context.color);
        const notes = stream.notes.map((note) => `note: ${note}\n`).join("");
        context.stdout(`${renderHealth(health, style)}\n${renderQuery(result, style)}${notes}`);
      }
      return ExitCode.Ok;
    }
    const document = await loadTrace(path, context);
    const health = analyzeHealth(document);
    if (kind === "ops") {
      const result = operatorTable(document, { groupBy, limit });
      const style = createStyle(context.color);
      context.stdout(
        booleanOption(args, "json")
          ? `${stringifyJson({ health, result })}\n`
          : `${renderHealth(health, style)}\n${renderOperators(result, style, "Operators")}`,
      );
      return ExitCode.Ok;
    }
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

import {
  type Comparison,
  formatU64,
  OPERATOR_GROUP_FIELDS,
  operatorLabel,
  type SignedInteger,
} from "@cg/trace";
import type { Command } from "../command.js";
import { ExitCode } from "../exit-codes.js";
import { escapeControl } from "../format/escape-control.js";
import { stringifyJson } from "../format/json-output.js";
import { createStyle, type Style } from "../format/style.js";
import { renderColumns, renderFacts } from "../format/table.js";
import { formatDuration, formatPercent, formatSignedBytes, formatSignedDuration } from "../format/units.js";
import { jsonOption } from "../option-specs.js";
import { booleanOption, stringOption } from "../parse-command-args.js";
import { streamComparison } from "../trace-input.js";
import { groupByOption } from "./query.js";

const big = (value: SignedInteger): bigint => BigInt(value);

export function renderComparison(comparison: Comparison, style: Style): string {
  const out: string[] = [];
  const verdict = comparison.comparable ? style.good("COMPARABLE") : style.bad("NOT COMPARABLE");
  out.push(`${style.bold("Comparison")}: ${verdict}\n`);
  for (const reason of comparison.reasons) out.push(`  ${style.bad("reason")}: ${escapeControl(reason)}\n`);
  for (const warning of comparison.warnings)
    out.push(`  ${style.warn("warning")}: ${escapeControl(warning)}\n`);
  const run = (side: Comparison["baseline"]) =>
    `${side.run_id} (${side.entrypoint}, ${side.trusted ? "trusted" : "untrusted"}), total ${formatDuration(side.total_ns)}`;
  out.push(
    renderFacts([
      ["baseline", run(comparison.baseline)],
      ["candidate", run(comparison.candidate)],
      [
        "total delta",
        `${formatSignedDuration(big(comparison.total_delta_ns))} (${formatPercent(comparison.total_delta_percent)}), ${formatU64(comparison.baseline.total_ns)} → ${formatU64(comparison.candidate.total_ns)} ns`,
      ],
      [
        "peak memory delta",
        `${formatSignedBytes(big(comparison.peak_delta_bytes))} (${formatPercent(comparison.peak_delta_percent)}), ${formatU64(comparison.baseline.peak_bytes)} → ${formatU64(comparison.candidate.peak_bytes)} B`,
      ],
    ]),
  );
  if (comparison.span_deltas.length > 0) {
    out.push(`\n${style.bold("Span deltas")} (measured subtree, by path, largest first)\n`);
    out.push(
      renderColumns(
        [
          { header: "path", cell: (delta) => delta.path },
          { header: "baseline", align: "right", cell: (delta) => formatDuration(delta.baseline_ns) },
          { header: "candidate", align: "right", cell: (delta) => formatDuration(delta.candidate_ns) },
          { header: "delta", align: "right", cell: (delta) => formatSignedDuration(big(delta.delta_ns)) },
          { header: "%", align: "right", cell: (delta) => formatPercent(delta.delta_percent) },
        ],
        comparison.span_deltas,
      ),
    );
  }
  const operators = comparison.operators;
  if (operators.operator_count > 0) {
    const changes = [
      operators.appeared.length > 0 ? `appeared: ${operators.appeared.join(", ")}` : "",
      operators.disappeared.length > 0 ? `disappeared: ${operators.disappeared.join(", ")}` : "",
    ].filter((part) => part !== "");
    const grouped = operators.group_by.length > 0 ? ` and ${operators.group_by.join(", ")}` : "";
    out.push(
      `\n${style.bold("Operator deltas")} (by op name${grouped}, largest total change first${operators.deltas.length < operators.operator_count ? `, ${operators.deltas.length} of ${operators.operator_count}` : ""})\n`,
    );
    if (changes.length > 0) out.push(`  ${escapeControl(changes.join("; "))}\n`);
    const duration = (value: number | bigint): string => formatSignedDuration(BigInt(value));
    out.push(
      renderColumns(
        [
          {
            header: "op",
            cell: (delta) =>
              delta.status === "both"
                ? operatorLabel(delta, operators.group_by)
                : `${operatorLabel(delta, operators.group_by)} (${delta.status})`,
          },
          {
            header: "calls",
            align: "right",
            cell: (delta) => `${delta.baseline_calls} → ${delta.candidate_calls}`,
          },
          {
            header: "Δ calls",
            align: "right",
            cell: (delta) => `${delta.calls_delta > 0 ? "+" : ""}${delta.calls_delta}`,
          },
          {
            header: "total",
            align: "right",
            cell: (delta) =>
              `${formatDuration(delta.baseline_total_ns)} → ${formatDuration(delta.candidate_total_ns)}`,
          },
          { header: "Δ total", align: "right", cell: (delta) => duration(delta.total_delta_ns) },
          { header: "%", align: "right", cell: (delta) => formatPercent(delta.total_delta_percent) },
          { header: "mean", align: "right", cell: (delta) => formatDuration(delta.candidate_mean_ns) },
          { header: "Δ mean", align: "right", cell: (delta) => duration(delta.mean_delta_ns) },
        ],
        operators.deltas,
      ),
    );
  }
  out.push(`\n${style.bold("Gradient changes")}: ${comparison.gradient_changes.length}\n`);
  if (comparison.gradient_changes.length > 0) {
    const side = (value: { state: string; norm?: number } | undefined) =>
      value === undefined
        ? "(absent)"
        : `${value.state}${value.norm === undefined ? "" : ` ${value.norm.toPrecision(6)}`}`;
    out.push(
      renderColumns(
        [
          { header: "parameter", cell: (change) => change.key },
          { header: "baseline", cell: (change) => side(change.baseline) },
          { header: "candidate", cell: (change) => side(change.candidate) },
        ],
        comparison.gradient_changes,
      ),
    );
  }
  return out.join("");
}

export const compareCommand: Command = {
  name: "compare",
  summary:
    "compare two traces: comparability, total, per-path and per-operator deltas, peak memory, gradient changes",
  arguments: [
    { name: "baseline", description: "the reference trace (.jsonl)" },
    { name: "candidate", description: "the trace compared against it (.jsonl)" },
  ],
  options: {
    "group-by": {
      type: "string",
      valueName: "FIELDS",
      description: `operator deltas per op name and ${OPERATOR_GROUP_FIELDS.join(", ")} (comma-separated)`,
    },
    json: jsonOption('the comparison as JSON (schema "candle-graph/comparison/1")'),
  },
  help: `Traces are comparable when both are trusted and agree on entrypoint, phase, device, timing
mode, measured-region sync, warm-up steps and tags (source_revision, source_commit and build_id
only warn). Untrusted traces are still compared, and marked not comparable.

Both traces are streamed, one after the other: memory follows their span counts (two compact span
tables of tens of bytes per span) and op counts (8 bytes per op), not the file sizes.

Exit codes: 0 compared (the verdict is in the output), 2 usage error or a trace that does not parse.`,
  async run(args, context) {
    const [baselinePath, candidatePath] = args.positionals as [string, string];
    const operatorGroupBy = groupByOption("compare", stringOption(args, "group-by"));
    const comparison = await streamComparison(baselinePath, candidatePath, context, { operatorGroupBy });
    context.stdout(
      booleanOption(args, "json")
        ? `${stringifyJson(comparison)}\n`
        : renderComparison(comparison, createStyle(context.color)),
    );
    return ExitCode.Ok;
  },
};

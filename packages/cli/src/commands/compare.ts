import {
  type Comparison,
  ComparisonInputError,
  formatAttribution,
  type GateRule,
  OPERATOR_GROUP_FIELDS,
  operatorLabel,
  parseGateRules,
  type SignedInteger,
} from "@cg/parser";
import { formatU64 } from "@cg/schema/core";
import { UsageError } from "../cli-error.js";
import type { Command } from "../command.js";
import { ExitCode } from "../exit-codes.js";
import { escapeControl } from "../format/escape-control.js";
import { stringifyJson } from "../format/json-output.js";
import { createStyle, type Style } from "../format/style.js";
import { renderColumns, renderFacts } from "../format/table.js";
import { formatDuration, formatPercent, formatSignedBytes, formatSignedDuration } from "../format/units.js";
import { jsonOption } from "../option-specs.js";
import { booleanOption, choiceOption, stringOption } from "../parse-command-args.js";
import { streamComparison } from "../trace-input.js";
import { checkText, githubAnnotations } from "./compare-annotations.js";
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

/** The ranked attribution, each name escaped (names come from the traces). */
export function renderAttribution(comparison: Comparison, style: Style): string {
  if (comparison.attribution === undefined) return "";
  const text = formatAttribution(comparison.attribution, { name: escapeControl });
  return `\n${style.bold("What explains the change")} (ranked; parts + unmatched + other = the delta)\n${text}\n`;
}

/** The gate's verdict and its broken checks. */
export function renderGate(comparison: Comparison, style: Style): string {
  const gate = comparison.gate;
  if (gate === undefined) return "";
  const broken = gate.checks.filter((check) => check.broken);
  const out = [
    `\n${style.bold("Gate")}: ${broken.length === 0 ? style.good("PASSED") : style.bad("FAILED")} (${escapeControl(gate.rules.join(", "))}; ${gate.checks.length} checks)\n`,
  ];
  for (const check of broken)
    out.push(`  ${style.bad("broken")} ${escapeControl(check.rule)}: ${escapeControl(checkText(check))}\n`);
  return out.join("");
}

/** The `--fail-on` rules, or a usage error saying which rule is wrong and where. */
function failOnRules(text: string | undefined): GateRule[] | undefined {
  if (text === undefined) return undefined;
  try {
    return parseGateRules(text);
  } catch (error) {
    if (ComparisonInputError.isInstance(error)) {
      throw new UsageError({ message: `compare --fail-on: ${error.message}`, cause: error });
    }
    throw error;
  }
}

const FORMATS = ["text", "json", "github"] as const;

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
    json: jsonOption('the comparison as JSON (schema "candle-graph/comparison/1"; same as --format json)'),
    format: {
      type: "string",
      valueName: "FORMAT",
      description:
        "text (default), json, or github: GitHub Actions annotations (::error:: per broken rule, else a ::notice::) followed by the text",
    },
    "fail-on": {
      type: "string",
      valueName: "RULES",
      description:
        "exit 1 when a rule is broken, e.g. time>5%,peak>64MiB,span:forward/time>10%,op:matmul/time>2ms (grammar below)",
    },
    force: {
      type: "boolean",
      description:
        "compare traces that are not comparable (the reasons are still printed); without it they exit 2",
    },
  },
  help: `Traces are comparable when both are trusted and agree on entrypoint, phase, device, timing
mode, measured-region sync, warm-up steps and tags (source_revision, source_commit and build_id
only warn). Traces that are not comparable exit 2 with the reasons; --force compares them anyway.

Attribution: the measured-time delta is split over each span's own time outside its ops and each
op signature's time in a span (spans matched by path, then by path with numbers masked, then ops
by signature alone); the peak-memory delta over what was live at each peak per span, category and
op. The named parts, "unmatched" (parts on one side only) and "other" (smaller parts, time outside
the spans' own time, peak bytes outside the live set) add up to the delta exactly.

--fail-on RULES, comma-separated:
  rule   = [scope "/"] metric ">" limit       scope = span:PATH | op:NAME
  metric = time | peak                        limit = N% or N with a unit
  units  = ns us µs ms s (time); B KB MB GB KiB MiB GiB TiB (peak)
A limit is the growth allowed over the baseline. span:PATH names every span path equal to PATH or
ending in /PATH (its total time; for peak, the bytes it allocated that are live at the peak);
op:NAME an op name (its time in the measured region; for peak, its allocations live at the peak).
A selector holding a comma is written as a JSON string: span:"a,b"/time>5%. A selector naming
nothing in either trace exits 2. A part that is new (baseline 0) breaks a % limit when it grows.
For one pair of runs, keep total limits above the run-to-run noise (time>5% and peak>5% never
broke on pairs differing only by noise in the tests); repeated runs belong to cg-trace regress.

Both traces are streamed, one after the other: memory follows their span counts (two compact span
tables of tens of bytes per span) and op counts (8 bytes per op), not the file sizes.

Exit codes: 0 compared and no rule broken, 1 a --fail-on rule broken (the attribution says why),
2 bad usage or rule, a trace that does not parse, or traces that are not comparable.`,
  async run(args, context) {
    const [baselinePath, candidatePath] = args.positionals as [string, string];
    const operatorGroupBy = groupByOption("compare", stringOption(args, "group-by"));
    const format = booleanOption(args, "json")
      ? "json"
      : choiceOption(args, "compare", "format", FORMATS, "text");
    const failOn = failOnRules(stringOption(args, "fail-on"));
    const comparison = await streamComparison(baselinePath, candidatePath, context, {
      operatorGroupBy,
      ...(failOn === undefined ? {} : { failOn }),
    });
    if (!comparison.comparable && !booleanOption(args, "force")) {
      if (format === "github") context.stdout(githubAnnotations(comparison));
      throw new UsageError({
        message: `compare: the traces are not comparable: ${comparison.reasons.join("; ")} (--force compares them anyway)`,
      });
    }
    const style = createStyle(context.color);
    const text = () =>
      renderComparison(comparison, style) +
      renderAttribution(comparison, style) +
      renderGate(comparison, style);
    if (format === "json") context.stdout(`${stringifyJson(comparison)}\n`);
    else if (format === "github") context.stdout(githubAnnotations(comparison) + text());
    else context.stdout(text());
    return comparison.gate !== undefined && !comparison.gate.passed ? ExitCode.Failure : ExitCode.Ok;
  },
};

import type { RegressOptions, RegressReport, RunOrder } from "@cg/sql";
import { UsageError } from "../cli-error.js";
import type { Command, CommandArguments } from "../command.js";
import { ExitCode } from "../exit-codes.js";
import { escapeControl } from "../format/escape-control.js";
import { stringifyJson } from "../format/json-output.js";
import { createStyle } from "../format/style.js";
import { formatBytesShort } from "../format/units.js";
import { followSymlinksOption, globOption, jsonOption } from "../option-specs.js";
import { writeOutput } from "../output-target.js";
import { booleanOption, choiceOption, positiveIntegerOption, stringOption } from "../parse-command-args.js";
import { attributeChange, type ChangeAttribution } from "../regress/attribution.js";
import { parseThreshold } from "../regress/parse-threshold.js";
import { type FlaggedChange, renderRegressCi, renderRegressText } from "../regress/render-regress.js";
import { trendPageInput } from "../regress/trend-page.js";
import { openInputs } from "../trace-set-input.js";

function numberOption(
  args: CommandArguments,
  name: string,
  fallback: number,
  valid: (value: number) => boolean,
  rule: string,
): number {
  const text = stringOption(args, name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || !valid(value)) {
    throw new UsageError({ message: `regress: --${name} must be ${rule}, got "${text}"` });
  }
  return value;
}

function orderOption(args: CommandArguments): RunOrder {
  const text = stringOption(args, "order-by");
  if (text === undefined || text === "timestamp") return { by: "timestamp" };
  if (text.startsWith("tag:") && text.length > 4) return { by: "tag", tag: text.slice(4) };
  throw new UsageError({ message: `regress: --order-by must be timestamp or tag:NAME, got "${text}"` });
}

function regressOptions(args: CommandArguments): RegressOptions {
  const threshold = (name: string, unit: "ns" | "bytes") => {
    const text = stringOption(args, name);
    return text === undefined ? undefined : parseThreshold(text, unit, name);
  };
  const stepTime = threshold("time-threshold", "ns");
  const peakMemory = threshold("memory-threshold", "bytes");
  const operator = threshold("op-threshold", "ns");
  const filter = {
    ...(stringOption(args, "entrypoint") === undefined
      ? {}
      : { entrypoint: stringOption(args, "entrypoint") as string }),
    ...(stringOption(args, "phase") === undefined ? {} : { phase: stringOption(args, "phase") as string }),
    ...(stringOption(args, "device") === undefined ? {} : { device: stringOption(args, "device") as string }),
  };
  return {
    baseline: positiveIntegerOption(args, "regress", "baseline", 20),
    candidate: positiveIntegerOption(args, "regress", "candidate", 3),
    order: orderOption(args),
    filter,
    topOperators: numberOption(
      args,
      "top-ops",
      5,
      (value) => Number.isSafeInteger(value) && value >= 0,
      "a whole number ≥ 0",
    ),
    alpha: numberOption(args, "alpha", 0.01, (value) => value > 0 && value < 1, "a number between 0 and 1"),
    bandK: numberOption(args, "band-k", 3, (value) => value >= 0, "a number ≥ 0"),
    thresholds: {
      ...(stepTime === undefined ? {} : { stepTime }),
      ...(peakMemory === undefined ? {} : { peakMemory }),
      ...(operator === undefined ? {} : { operator }),
    },
  };
}

/** Attributes every flagged change; one comparison per pair of representative runs. */
async function attributeFlagged(
  report: RegressReport,
  context: Parameters<Command["run"]>[1],
): Promise<FlaggedChange[]> {
  const byPair = new Map<string, Promise<ChangeAttribution>>();
  const changes: FlaggedChange[] = [];
  for (const metric of report.metrics) {
    const pair = metric.representative;
    if (pair === undefined) continue;
    const key = `${pair.baseline.runId}\u0000${pair.candidate.runId}`;
    let attribution = byPair.get(key);
    if (attribution === undefined) {
      attribution = attributeChange(pair.baseline, pair.candidate, context);
      byPair.set(key, attribution);
    }
    changes.push({ metric, attribution: await attribution });
  }
  return changes;
}

export const regressCommand: Command = {
  name: "regress",
  summary:
    "regression gate over many runs: the newest runs against a baseline window, noise-aware, with attribution",
  arguments: [
    {
      name: "inputs...",
      description: "trace files, folders (every .jsonl below), glob patterns, or one dataset folder",
    },
  ],
  options: {
    baseline: {
      type: "string",
      valueName: "N",
      description: "runs in the baseline window, just before the candidates (default 20)",
    },
    candidate: {
      type: "string",
      valueName: "N",
      description: "newest runs judged against the baseline (default 3)",
    },
    "order-by": {
      type: "string",
      valueName: "ORDER",
      description: "timestamp (default: the meta line's) or tag:NAME (numeric when every value is a number)",
    },
    "time-threshold": {
      type: "string",
      valueName: "T",
      description: "step time change to flag: 5% (default) or an amount, e.g. 2ms",
    },
    "memory-threshold": {
      type: "string",
      valueName: "T",
      description: "peak memory change to flag: 5% (default) or an amount, e.g. 64MiB",
    },
    "op-threshold": {
      type: "string",
      valueName: "T",
      description: "per-operator time change to flag: 10% (default) or an amount",
    },
    alpha: {
      type: "string",
      valueName: "P",
      description: "one-sided significance level of the rank test (default 0.01)",
    },
    "band-k": {
      type: "string",
      valueName: "K",
      description: "noise band: baseline median ± K·1.4826·MAD (default 3)",
    },
    "top-ops": {
      type: "string",
      valueName: "N",
      description: "operators (by summed time over all runs) judged one by one (default 5)",
    },
    entrypoint: { type: "string", valueName: "NAME", description: "only runs of this entrypoint" },
    phase: { type: "string", valueName: "PHASE", description: "only runs of this phase" },
    device: { type: "string", valueName: "DEVICE", description: "only runs on this device" },
    format: {
      type: "string",
      valueName: "FORMAT",
      description: "text (default) or ci: GitHub Actions ::error / ::notice lines",
    },
    html: {
      type: "string",
      valueName: "FILE",
      description: "also write the trend page: one offline HTML file of the series",
    },
    json: jsonOption(
      'the report with the series, verdicts and attributions (schema "candle-graph/regress/1")',
    ),
    strict: {
      type: "boolean",
      description: "fail on the first trace that does not parse instead of skipping it",
    },
    glob: globOption,
    "follow-symlinks": followSymlinksOption,
  },
  help: `Series per run (in run order): the measured step time, the peak memory and the time of each top
operator. The newest --candidate runs are judged against the --baseline runs before them, per
series: flagged when the medians differ by more than the threshold, the candidate median lies
outside the baseline median ± K·1.4826·MAD, and a one-sided Mann-Whitney U test (exact for small
windows) gives p ≤ alpha. A window too small to ever reach alpha is refused with the number of
runs it needs: one run against another never gives a verdict. Untrusted runs are left out.
Each flagged change is attributed: the run nearest each window's median, compared.

Examples:
  cg-trace regress nightly/ --baseline 20 --candidate 3
  cg-trace regress cg-dataset/ --order-by tag:build --time-threshold 2ms --html trend.html
  cg-trace regress nightly/ --format ci

Exit codes: 0 no regression, 1 a regression (step time, peak memory or a top operator), 2 usage
error, too few runs, runs that are not comparable, or no traces.`,
  async run(args, context) {
    const inputs = args.positionals;
    if (inputs.length === 0)
      throw new UsageError({
        message: "regress: give traces, folders (patterns with --glob) or a dataset folder",
      });
    const format = choiceOption(args, "regress", "format", ["text", "ci"] as const, "text");
    if (booleanOption(args, "json") && stringOption(args, "format") !== undefined) {
      throw new UsageError({ message: "regress: --json and --format exclude each other" });
    }
    const options = regressOptions(args);
    const sql = await import("@cg/sql");
    // The fleet's own queries need no file beyond the inputs: the database stays sandboxed.
    const database = await openInputs(
      inputs,
      {
        strict: booleanOption(args, "strict"),
        glob: booleanOption(args, "glob"),
        followSymlinks: booleanOption(args, "follow-symlinks"),
        allowExternalAccess: false,
        // The verdict reads the runs and their ops, nothing else of a dataset.
        tables: ["runs", "ops"],
      },
      context,
    );
    let report: RegressReport;
    let changes: FlaggedChange[];
    try {
      try {
        report = await sql.regressFleet(database, options);
      } catch (error) {
        if (sql.RegressError.isInstance(error))
          throw new UsageError({ message: `regress: ${error.message}`, cause: error });
        throw error;
      }
      changes = await attributeFlagged(report, context);
    } finally {
      database.close();
    }
    const html = stringOption(args, "html");
    if (html !== undefined) {
      const { renderTrendHtml } = await import("@cg/report");
      const page = renderTrendHtml(trendPageInput(report, undefined));
      await writeOutput(html, context, (write) => write(page));
      context.stderr(`wrote ${escapeControl(html)} (${formatBytesShort(Buffer.byteLength(page))})\n`);
    }
    if (booleanOption(args, "json")) {
      const attributions = changes.map((change) => ({ metric: change.metric.label, ...change.attribution }));
      context.stdout(`${stringifyJson({ ...report, attributions })}\n`);
    } else if (format === "ci") {
      context.stdout(renderRegressCi(report, changes));
    } else {
      context.stdout(renderRegressText(report, changes, createStyle(context.color)));
    }
    return report.regressed ? ExitCode.Failure : ExitCode.Ok;
  },
};

// `cg-trace regress` over writer-made fleets (noisy op times, a change planted in the newest runs):
// the verdict, its attribution, the exit codes, the CI and JSON forms, a dataset, and the trend page
// opened in headless chromium.
import { mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { writeRegressFleet } from "../../../bench/src/support/regress-fleet.js";
import { runInProcess } from "./run-in-process.js";

const workDir = mkdtempSync(join(tmpdir(), "cg-cli-regress-"));
const slowFleet = join(workDir, "slow");
const memoryFleet = join(workDir, "memory");
const quietFleet = join(workDir, "quiet");

beforeAll(() => {
  writeRegressFleet(slowFleet, { runs: 26, seed: 11, slowOp: { op: "matmul_grad", factor: 1.5, runs: 3 } });
  writeRegressFleet(memoryFleet, { runs: 24, seed: 12, extraBytes: { bytes: 2 << 20, runs: 3 } });
  writeRegressFleet(quietFleet, { runs: 24, seed: 13, noise: 0.05 });
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

interface JsonReport {
  schema: string;
  regressed: boolean;
  candidateRuns: string[];
  metrics: { label: string; verdict?: { status: string } }[];
  attributions: {
    metric: string;
    candidateRunId: string;
    parts: { kind: string; name: string; delta: number }[];
  }[];
}

describe("a slowed op in the newest runs", () => {
  test("text: exit 1, the step time and the op flagged, the op named first in the attribution", async () => {
    const { exitCode, stdout, stderr } = await runInProcess(["regress", slowFleet]);
    expect(stderr).toBe("");
    expect(exitCode).toBe(1);
    expect(stdout).toMatch(/^Regress: REGRESSION \(2 of 7 metrics\) — fleet::train_step, train, cuda:0\n/);
    expect(stdout).toContain("baseline:  run-3 … run-22 (20)");
    expect(stdout).toContain("candidate: run-23 … run-25 (3)");
    expect(stdout).toMatch(/step time .* REGRESSION\n/);
    expect(stdout).toMatch(/op matmul_grad .* REGRESSION\n/);
    expect(stdout).toMatch(/peak memory .* unchanged/);
    // One comparison serves both flagged metrics: the same representative pair.
    const attributions = stdout.split("\nAttribution: ").slice(1);
    expect(attributions).toHaveLength(2);
    for (const section of attributions) {
      // compare's ranked explanation: the slowed op's calls in the backward step first, then what
      // the peak memory did (unchanged here).
      const lines = section.split("\n");
      const first = lines.find((line) => /^\s+1\.\s/.test(line));
      expect(first).toMatch(/^\s+1\.\s+\+\S+ \S+\s+matmul_grad \[.*\bin \S*backward/);
      expect(lines.some((line) => /^\s+Peak memory [+-]/.test(line))).toBe(true);
    }
  });

  test("--json: the report, verdicts and attributions", async () => {
    const { exitCode, stdout } = await runInProcess(["regress", slowFleet, "--json"]);
    expect(exitCode).toBe(1);
    const report = JSON.parse(stdout) as JsonReport;
    expect(report.schema).toBe("candle-graph/regress/1");
    expect(report.regressed).toBe(true);
    expect(
      report.metrics
        .filter((metric) => metric.verdict?.status === "regression")
        .map((metric) => metric.label),
    ).toEqual(["step time", "op matmul_grad"]);
    const [first] = report.attributions;
    expect(first?.metric).toBe("step time");
    expect(report.candidateRuns).toContain(first?.candidateRunId);
    const ops = first?.parts.filter((part) => part.kind === "op") ?? [];
    // Parts are compare's: an op signature within its span.
    expect(ops[0]?.name).toMatch(/^matmul_grad \[/);
    // The planted op explains most of the step-time change.
    const step = (first as unknown as { totalDeltaNs: number }).totalDeltaNs;
    expect((ops[0]?.delta ?? 0) / step).toBeGreaterThan(0.8);
  });

  test("--format ci: GitHub Actions error lines, escaped", async () => {
    const { exitCode, stdout } = await runInProcess(["regress", slowFleet, "--format", "ci"]);
    expect(exitCode).toBe(1);
    const lines = stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^::error title=cg-trace regress%3A step time::step time regression: \+.* \(\+\d+\.\d%25\), median .* p = .*%0Acandidate run-23 … run-25 \(3\) against baseline run-3 … run-22 \(20\)%0Alargest changes: op matmul_grad \[[^;]*\bin [^;]*backward[^;]* \+[^;]+; op [^;]+(; span [^;]+)?$/,
    );
    expect(lines[1]).toMatch(/^::error title=cg-trace regress%3A op matmul_grad::/);
    expect(lines[2]).toBe("cg-trace regress: REGRESSION in 2 of 7 metrics");
  });

  test("from an exported dataset: the same verdict; without the trace files the attribution says so", async () => {
    const dataset = join(workDir, "dataset");
    expect((await runInProcess(["export", slowFleet, "--to", "parquet", "-o", dataset])).exitCode).toBe(0);
    const fromTraces = JSON.parse(
      (await runInProcess(["regress", slowFleet, "--json"])).stdout,
    ) as JsonReport;
    const fromDataset = await runInProcess(["regress", dataset, "--json"]);
    expect(fromDataset.exitCode).toBe(1);
    expect(JSON.parse(fromDataset.stdout)).toEqual(fromTraces);
    const moved = join(workDir, "slow-moved");
    renameSync(slowFleet, moved);
    try {
      const { exitCode, stdout } = await runInProcess(["regress", dataset]);
      expect(exitCode).toBe(1);
      expect(stdout).toMatch(/unavailable: trace file of run-\d+ not found: .*run-00\d\d\.jsonl/);
    } finally {
      renameSync(moved, slowFleet);
    }
  });
});

test("a span allocating more: the peak memory flagged", async () => {
  const { exitCode, stdout } = await runInProcess(["regress", memoryFleet, "--json"]);
  expect(exitCode).toBe(1);
  const report = JSON.parse(stdout) as JsonReport;
  expect(
    report.metrics.filter((metric) => metric.verdict?.status === "regression").map((metric) => metric.label),
  ).toEqual(["peak memory"]);
  expect((report.attributions[0] as unknown as { peakDeltaBytes: number }).peakDeltaBytes).toBe(2 << 20);
});

test("noise only: exit 0", async () => {
  const { exitCode, stdout } = await runInProcess(["regress", quietFleet]);
  expect(exitCode).toBe(0);
  expect(stdout).toMatch(/^Regress: OK/);
  expect(stdout).not.toContain("Attribution");
  const ci = await runInProcess(["regress", quietFleet, "--format", "ci"]);
  expect(ci.stdout).toBe("cg-trace regress: OK (7 metrics)\n");
});

describe("bad input: exit 2 with one clear line", () => {
  test.each([
    [
      ["--baseline", "30"],
      "cg-trace: regress: a verdict needs 33 trusted runs (30 baseline + 3 candidate), found 24\n",
    ],
    [
      ["--baseline", "5", "--candidate", "1"],
      "cg-trace: regress: a baseline of 5 run(s) against 1 candidate run(s) can never reach p ≤ 0.01: use --baseline 99 or more (or more candidate runs)\n",
    ],
    [
      ["--order-by", "tag:nope"],
      'cg-trace: regress: 24 run(s) have no tag "nope" to order by: run-0, run-1, run-2, run-3, run-4, …\n',
    ],
    [["--order-by", "build"], 'cg-trace: regress: --order-by must be timestamp or tag:NAME, got "build"\n'],
    [
      ["--time-threshold", "5 parsecs"],
      'cg-trace: regress: --time-threshold must be a percentage such as 5% or an amount in ns, us, µs, ms, s, got "5 parsecs"\n',
    ],
    [["--alpha", "1"], 'cg-trace: regress: --alpha must be a number between 0 and 1, got "1"\n'],
    [
      ["--entrypoint", "other"],
      "cg-trace: regress: a verdict needs 23 trusted runs (20 baseline + 3 candidate), found 0\n",
    ],
  ])("%j", async (extra, message) => {
    const { exitCode, stderr } = await runInProcess(["regress", quietFleet, ...extra]);
    expect(stderr).toBe(message);
    expect(exitCode).toBe(2);
  });
});

test("thresholds as amounts and a tag order", async () => {
  // 1 s of step time is never exceeded: no regression, though the op still is.
  const { exitCode, stdout } = await runInProcess([
    "regress",
    slowFleet,
    "--time-threshold",
    "1s",
    "--op-threshold",
    "100us",
    "--order-by",
    "tag:build",
    "--json",
  ]);
  expect(exitCode).toBe(1);
  const report = JSON.parse(stdout) as JsonReport;
  expect(report.metrics.map((metric) => metric.verdict?.status)).toEqual([
    "unchanged",
    "unchanged",
    "regression",
    "unchanged",
    "unchanged",
    "unchanged",
    "unchanged",
  ]);
});

test("--html: the trend page in chromium shows the flagged runs of the regressed series", async () => {
  const page = join(workDir, "trend.html");
  const { exitCode, stderr } = await runInProcess(["regress", slowFleet, "--html", page, "--format", "ci"]);
  expect(exitCode).toBe(1);
  expect(stderr).toMatch(/^wrote .*trend\.html \(\d+\.\d\d KiB\)\n$/);
  expect(readFileSync(page, "utf8")).not.toContain("<script");
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox"],
  });
  try {
    const tab = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const problems: string[] = [];
    tab.on("console", (message) => problems.push(message.text()));
    tab.on("request", (request) => {
      if (!request.url().startsWith("file:")) problems.push(request.url());
    });
    await tab.goto(pathToFileURL(page).href);
    expect(await tab.locator("#verdict").textContent()).toBe("REGRESSION");
    const flagged = async (series: string) =>
      tab
        .locator(`svg[data-series="${series}"] circle.flagged`)
        .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-run")));
    expect(await flagged("step_time")).toEqual(["run-23", "run-24", "run-25"]);
    expect(await flagged("op:matmul_grad")).toEqual(["run-23", "run-24", "run-25"]);
    expect(await flagged("peak_memory")).toEqual([]);
    expect(await tab.locator("svg.trend-chart").count()).toBe(7);
    expect(await tab.locator('svg[data-series="step_time"] circle.point').count()).toBe(26);
    expect(problems).toEqual([]);
  } finally {
    await browser.close();
  }
}, 60_000);

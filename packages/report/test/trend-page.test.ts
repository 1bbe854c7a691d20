// The trend page in headless chromium: one chart per series, the windows, the noise band and the
// flagged runs where the data says, nothing fetched, and hostile run ids shown as text.
import { mkdirSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { expect, test } from "vitest";
import { renderTrendHtml, type TrendPageInput, type TrendRun } from "../src/index.js";
import { browserForFile, outputDir } from "./browser-harness.js";

const browser = browserForFile();

const HOSTILE = `<img src=x onerror="alert(1)">'"&`;

function input(): TrendPageInput {
  const runs: TrendRun[] = Array.from({ length: 30 }, (_, index) => ({
    runId: index === 5 ? HOSTILE : `run-${index}`,
    label: `2026-01-${String(index + 1).padStart(2, "0")}`,
    trusted: index !== 2,
    ...(index >= 27 ? { window: "candidate" as const } : index >= 7 ? { window: "baseline" as const } : {}),
  }));
  const wave = (index: number) => Math.sin(index * 1.7) * 0.02;
  const step = runs.map((_, index) => 1_470_000 * (1 + wave(index)) * (index >= 27 ? 1.3 : 1));
  return {
    title: `Trend of fleet::train_step ${HOSTILE}`,
    facts: [
      ["runs", "30 (20 baseline, 3 candidate)"],
      ["verdict", "regression in step time"],
    ],
    runs,
    series: [
      {
        id: "step_time",
        title: "step time",
        unit: "ns",
        values: step,
        status: "regression",
        band: { median: 1_470_000, low: 1_420_000, high: 1_520_000 },
        detail: "+30.1 % (1.47 ms → 1.91 ms), p = 0.0006",
      },
      {
        id: "peak_memory",
        title: "peak memory",
        unit: "bytes",
        values: runs.map(() => 4 * 1024 ** 2),
        status: "unchanged",
        band: { median: 4 * 1024 ** 2, low: 4 * 1024 ** 2, high: 4 * 1024 ** 2 },
      },
      {
        id: `op:${HOSTILE}`,
        title: `op ${HOSTILE}`,
        unit: "ns",
        values: runs.map((_, index) => (index === 10 ? Number.NaN : 400_000 * (1 + wave(index + 3)))),
        status: "unchanged",
      },
      { id: "op:adam", title: "op adam", unit: "ns", values: runs.map(() => 150_000), status: "no data" },
    ],
  };
}

test("the trend page draws every series with its windows, band and flagged runs", async () => {
  const html = renderTrendHtml(input());
  expect(html).not.toContain("<script");
  expect(html).not.toMatch(/https?:\/\//);
  mkdirSync(outputDir, { recursive: true });
  const path = `${outputDir}trend.html`;
  writeFileSync(path, html);
  const page = await browser().newPage({ viewport: { width: 1200, height: 900 } });
  const problems: string[] = [];
  page.on("console", (message) => problems.push(`console ${message.type()}: ${message.text()}`));
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("dialog", (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on("request", (request) => {
    if (!request.url().startsWith("file:")) problems.push(`request: ${request.url()}`);
  });
  await page.goto(pathToFileURL(path).href);
  await page.screenshot({ path: `${outputDir}trend.png`, fullPage: true });

  expect(await page.locator("#verdict").textContent()).toBe("REGRESSION");
  expect(await page.locator("h1").textContent()).toBe(`Trend of fleet::train_step ${HOSTILE}`);
  const charts = page.locator("svg.trend-chart");
  expect(await charts.count()).toBe(4);
  expect(await charts.evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-series")))).toEqual([
    "step_time",
    "peak_memory",
    `op:${HOSTILE}`,
    "op:adam",
  ]);
  const step = page.locator('svg[data-series="step_time"]');
  expect(await step.getAttribute("data-status")).toBe("regression");
  // A point per run; the three candidate runs flagged, drawn above the band.
  expect(await step.locator("circle.point").count()).toBe(30);
  const flagged = step.locator("circle.flagged");
  expect(await flagged.evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-run")))).toEqual([
    "run-27",
    "run-28",
    "run-29",
  ]);
  const bandTop = Number(await step.locator("rect.band").getAttribute("y"));
  for (const cy of await flagged.evaluateAll((nodes) =>
    nodes.map((node) => Number(node.getAttribute("cy"))),
  )) {
    expect(cy).toBeLessThan(bandTop);
  }
  expect(await step.locator("rect.window-baseline").count()).toBe(1);
  expect(await step.locator("rect.window-candidate").count()).toBe(1);
  expect(await step.locator("circle.untrusted").getAttribute("data-run")).toBe("run-2");
  // Unchanged series flag nothing; a missing value leaves a gap (29 points, two line pieces).
  expect(await page.locator('svg[data-series="peak_memory"] circle.flagged').count()).toBe(0);
  const op = charts.nth(2);
  expect(await op.locator("circle.point").count()).toBe(29);
  expect((await op.locator("path.line").getAttribute("d"))?.match(/M/g)).toHaveLength(2);
  // Hover text of the hostile run is its id, as text.
  expect(await step.locator("circle.point").nth(5).locator("title").textContent()).toBe(
    `${HOSTILE} (2026-01-06): ${((1_470_000 * (1 + Math.sin(5 * 1.7) * 0.02)) / 1e6).toPrecision(3)} ms`,
  );
  expect(await page.locator("img").count()).toBe(0);
  // Laid out: the large charts are wide, the small multiples side by side.
  const box = await step.boundingBox();
  expect(box?.width).toBeGreaterThan(900);
  const [left, right] = await Promise.all([charts.nth(2).boundingBox(), charts.nth(3).boundingBox()]);
  expect(left?.y).toBe(right?.y);
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

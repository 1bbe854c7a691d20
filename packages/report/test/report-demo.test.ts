// A realistic writer-made training capture, alone and against a baseline, in light and dark themes.
// These screenshots are the ones the README shows.
import { analyzeMemory } from "@cg/memory";
import { compareTraces, summarize } from "@cg/parser";
import { describe, expect, it } from "vitest";
import { renderReport } from "../src/index.js";
import { browserForFile, openReport, screenshot, showView } from "./browser-harness.js";
import { demoTrace } from "./demo-trace.js";

const browser = browserForFile();

describe("report of a demo training run", () => {
  it("shows the writer's capture in every view", async () => {
    const document = demoTrace();
    const summary = summarize(document);
    const memory = analyzeMemory({
      memory: document.memory,
      spans: document.spans,
      device_memory: document.device_memory,
    });
    const { page, problems } = await openReport(
      browser(),
      renderReport(document, { label: "demo.jsonl" }),
      "demo",
    );
    await expect(page.getByTestId("verdict-badge").textContent()).resolves.toBe("TRUSTED");
    await expect(page.getByTestId("span-count").locator(".tile-value").textContent()).resolves.toBe(
      String(summary.span_count),
    );
    await expect(page.getByTestId("peak-bytes").textContent()).resolves.toContain(
      `${Number(memory.peak_bytes).toLocaleString("en-US")} bytes`,
    );
    await expect(page.getByTestId("findings").textContent()).resolves.toContain(
      "8 gradient facts captured; 1 require attention",
    );
    await screenshot(page, "demo-overview");

    await showView(page, "timeline");
    const chart = page.getByTestId("flame-chart");
    await chart.focus();
    // Walk to the first module span and zoom to it with the keyboard.
    let details = "";
    for (let step = 0; step < 6 && !details.includes("block.0"); step++) {
      await page.keyboard.press("ArrowDown");
      details = await page.getByTestId("span-details").innerText();
    }
    expect(details).toContain("block.0");
    expect(details).toContain("module");
    await page.keyboard.press("Enter");
    const box = await chart.boundingBox();
    if (!box) throw new Error("flame chart has no box");
    // After zooming to block.0, its attention child fills the left part of row 4: hover shows it.
    await page.mouse.move(box.x + box.width * 0.2, box.y + 22 + 4 * 22 + 6);
    await expect(page.locator(".tooltip").innerText()).resolves.toContain("block.0.attention");
    await screenshot(page, "demo-timeline");

    await showView(page, "spans");
    const table = page.getByTestId("span-costs");
    const firstRow = () => table.locator("tbody tr").first().innerText();
    await expect(firstRow()).resolves.toContain("demo::train::update");
    await table.getByRole("button", { name: "Self" }).click();
    await expect(table.locator('th[aria-sort="descending"]').innerText()).resolves.toContain("Self");
    await expect(firstRow()).resolves.toContain("backward");
    await table.getByRole("searchbox").fill("adamw");
    await expect(table.locator("tbody tr").count()).resolves.toBe(1);
    await table.getByRole("searchbox").fill("");
    await screenshot(page, "demo-span-costs");

    await showView(page, "memory");
    await expect(page.getByTestId("peak-allocations").locator("tbody tr").count()).resolves.toBe(
      memory.peak_breakdown.length,
    );
    await expect(
      page.getByTestId("memory-chart").locator("path.area").count(),
    ).resolves.toBeGreaterThanOrEqual(3);
    await expect(page.getByTestId("device-memory-chart").locator("path.line").count()).resolves.toBe(2);
    await screenshot(page, "demo-memory");

    await showView(page, "gradients");
    const rows = await page.getByTestId("gradients").locator("tbody tr").allInnerTexts();
    expect(rows).toHaveLength(8);
    expect(rows[0]).toMatch(/model\/block\.3\.bias\s+zero/);
    await screenshot(page, "demo-gradients");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("compares a slower candidate with its baseline", async () => {
    const baseline = demoTrace();
    const candidate = demoTrace({ slowdown: 1.5, extraActivationBytes: 8192, lastBiasState: "missing" });
    const comparison = compareTraces(baseline, candidate);
    expect(comparison.comparable).toBe(true);
    const { page, problems } = await openReport(
      browser(),
      renderReport(candidate, { label: "candidate.jsonl", baseline, baselineLabel: "baseline.jsonl" }),
      "demo-comparison",
    );
    await showView(page, "comparison");
    await expect(page.getByTestId("comparable").textContent()).resolves.toContain("Comparable");
    await expect(page.getByTestId("peak-delta").textContent()).resolves.toContain(
      `${Number(comparison.baseline.peak_bytes).toLocaleString("en-US")} → ${Number(comparison.candidate.peak_bytes).toLocaleString("en-US")} bytes`,
    );
    const deltas = page.getByTestId("path-deltas").locator("tbody tr");
    await expect(deltas.count()).resolves.toBe(comparison.span_deltas.length);
    await expect(deltas.first().locator("td.worse").count()).resolves.toBe(1);
    await expect(page.locator("#panel-comparison").textContent()).resolves.toContain("model/block.3.bias");
    // The attribution: every named part, then the unmatched and other rows, the first part first.
    const attribution = comparison.attribution;
    if (attribution === undefined) throw new Error("no attribution");
    const timeRows = page.getByTestId("attribution-time-parts").locator("tbody tr");
    await expect(timeRows.count()).resolves.toBe(attribution.time.parts.length + 2);
    await expect(timeRows.first().textContent()).resolves.toContain(attribution.time.parts[0]?.label);
    await expect(timeRows.nth(attribution.time.parts.length).textContent()).resolves.toContain("unmatched");
    const peakRows = page.getByTestId("attribution-peak-parts").locator("tbody tr");
    await expect(peakRows.count()).resolves.toBe(attribution.peak.parts.length + 2);
    // The extra activation is freed before the peak, which both traces reach in the optimizer.
    await expect(page.getByTestId("attribution-peak").textContent()).resolves.toMatch(
      /^Peak memory 0 B \(0\.0%\): the named parts hold 0% of it\. Both peaks are reached in .*adamw \[function\]\/Optimizer\.$/,
    );
    await screenshot(page, "demo-comparison");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("is readable in the dark theme", async () => {
    const { page, problems } = await openReport(browser(), renderReport(demoTrace()), "demo-dark", {
      colorScheme: "dark",
    });
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe("rgb(21, 23, 28)");
    await showView(page, "timeline");
    await screenshot(page, "demo-timeline-dark");
    await showView(page, "memory");
    await screenshot(page, "demo-memory-dark");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("can be driven from the keyboard alone", async () => {
    const { page, problems } = await openReport(browser(), renderReport(demoTrace()), "demo-keyboard");
    await page.locator("#tab-overview").focus();
    await page.keyboard.press("ArrowRight");
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe("tab-timeline");
    await expect(page.locator("#panel-timeline").isVisible()).resolves.toBe(true);
    await page.keyboard.press("End");
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe("tab-gradients");
    await page.keyboard.press("Home");
    await page.keyboard.press("Tab");
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe("panel-overview");
    expect(problems).toEqual([]);
    await page.close();
  });
});

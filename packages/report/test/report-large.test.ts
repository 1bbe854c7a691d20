// A 200,000-event capture: the report aggregates and downsamples (and says so), stays bounded in
// size, and its views still draw and respond in the browser.
import { parseTraceText } from "@cg/parser";
import { describe, expect, it } from "vitest";
import { buildReportPayload, DEFAULT_REPORT_LIMITS, renderReport } from "../src/index.js";
import { browserForFile, openReport, screenshot, showView } from "./browser-harness.js";
import { largeTraceText } from "./large-trace.js";

const browser = browserForFile();

describe("report of a 200,000-event trace", () => {
  it("keeps the page bounded and says where it reduced", async () => {
    const small = renderReport(parseTraceText(largeTraceText(1_000)));
    const half = renderReport(parseTraceText(largeTraceText(100_000)));
    const text = largeTraceText(200_000);
    expect(text.split("\n").length).toBeGreaterThanOrEqual(200_000);
    const document = parseTraceText(text);
    const html = renderReport(document, { label: "large.jsonl" });
    // Sub-linear: doubling the trace from 100k to 200k events barely grows the page.
    expect(html.length).toBeLessThan(half.length * 1.25);
    expect(html.length).toBeLessThan(text.length / 10);
    expect(small.length).toBeLessThan(html.length);

    const payload = buildReportPayload(document);
    const timeline = payload.candidate.timeline;
    expect(timeline.spans.length).toBeLessThanOrEqual(DEFAULT_REPORT_LIMITS.timelineSpans + 20);
    expect(timeline.spans_total).toBe(document.spans.length);
    expect(timeline.ops_aggregated).toBe(true);
    expect(payload.candidate.memory.series[0]?.points.length).toBeLessThanOrEqual(
      DEFAULT_REPORT_LIMITS.memoryPoints,
    );
    // Downsampling keeps the peak itself.
    const peak = payload.candidate.memory.peak_bytes;
    expect(payload.candidate.memory.series[0]?.points.some((point) => point.live_bytes === peak)).toBe(true);

    const { page, problems } = await openReport(browser(), html, "large");
    await expect(page.getByTestId("reductions").innerText()).resolves.toMatch(
      /Timeline: \d+ of \d+ spans drawn/,
    );
    await expect(page.getByTestId("span-count").locator(".tile-value").textContent()).resolves.toBe(
      document.spans.length.toLocaleString("en-US"),
    );
    await screenshot(page, "large-overview");
    await showView(page, "timeline");
    const chart = page.getByTestId("flame-chart");
    await chart.focus();
    for (const key of ["+", "+", "ArrowRight", "ArrowDown", "Enter", "0"]) await page.keyboard.press(key);
    await expect(page.getByTestId("span-details").innerText()).resolves.toContain("bench::train::update");
    await screenshot(page, "large-timeline");
    await showView(page, "spans");
    await showView(page, "memory");
    await expect(page.locator("#panel-memory").innerText()).resolves.toContain("Downsampled to");
    await screenshot(page, "large-memory");
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);
});

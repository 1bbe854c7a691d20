// The report of the golden trace and of a realistic writer-made capture, checked view by view in a
// real browser (Debian chromium through playwright-core).
import { join } from "node:path";
import { parseTrace } from "@cg/parser";
import { fixturesDir } from "@cg/tooling-vitest";
import { describe, expect, it } from "vitest";
import { renderReport } from "../src/index.js";
import { browserForFile, openReport, screenshot, showView } from "./browser-harness.js";

const browser = browserForFile();

describe("golden trace report", () => {
  it("shows provenance, health, totals and findings in the overview", async () => {
    const document = await parseTrace(join(fixturesDir, "valid/golden-train.jsonl"));
    const { page, problems } = await openReport(
      browser(),
      renderReport(document, { label: "golden-train.jsonl" }),
      "golden",
    );
    await expect(page.getByTestId("verdict-badge").textContent()).resolves.toBe("TRUSTED");
    await expect(page.getByTestId("span-count").textContent()).resolves.toContain("5");
    await expect(page.getByTestId("peak-bytes").textContent()).resolves.toContain("4,096 bytes");
    await expect(page.getByTestId("measured-total").textContent()).resolves.toContain("90,000 ns");
    const provenance = await page.getByTestId("provenance").innerText();
    expect(provenance).toContain("demo::train::update");
    expect(provenance).toContain("cuda:0");
    expect(provenance).toMatch(/Warm-up steps\s+0/);
    await expect(page.getByTestId("tags").innerText()).resolves.toMatch(/physical_batch\s+128/);
    await expect(page.getByTestId("findings").innerText()).resolves.toContain(
      "2 gradient facts captured; 1 require attention",
    );
    await screenshot(page, "golden-overview");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("draws every view with the expected numbers", async () => {
    const document = await parseTrace(join(fixturesDir, "valid/golden-train.jsonl"));
    const { page, problems } = await openReport(browser(), renderReport(document), "golden-views");

    await showView(page, "timeline");
    const chart = page.getByTestId("flame-chart");
    await chart.focus();
    await page.keyboard.press("ArrowDown");
    await expect(page.getByTestId("span-details").innerText()).resolves.toContain("demo::train::update");
    await page.keyboard.press("ArrowDown");
    const measured = await page.getByTestId("span-details").innerText();
    expect(measured).toContain("demo/update-000000000001");
    expect(measured).toContain("measured region");
    expect(measured).toContain("total 90.000 µs");
    expect(measured).toContain("self 5.000 µs");
    await screenshot(page, "golden-timeline");

    await showView(page, "spans");
    const rows = page.getByTestId("span-costs").locator("tbody tr");
    await expect(rows.count()).resolves.toBe(5);
    await expect(rows.first().innerText()).resolves.toContain("demo::train::update");

    await showView(page, "memory");
    await expect(page.getByTestId("peak-label").textContent()).resolves.toBe("peak 4.00 KiB");
    const allocations = await page.getByTestId("peak-allocations").locator("tbody tr").allInnerTexts();
    expect(allocations).toHaveLength(1);
    expect(allocations[0]).toMatch(/t2\s+cuda:0\s+activation\s+4,096\s+matmul/);
    await expect(page.getByTestId("device-memory-chart").count()).resolves.toBe(1);

    await showView(page, "gradients");
    const gradients = await page.getByTestId("gradients").locator("tbody tr").allInnerTexts();
    expect(gradients[0]).toMatch(/vb\/head\.bias\s+missing/);
    expect(gradients[1]).toMatch(/vb\/encoder\.weight\s+present\s+0\.42/);
    expect(problems).toEqual([]);
    await page.close();
  });
});

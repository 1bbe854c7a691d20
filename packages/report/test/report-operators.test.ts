// The Operators tab in a real browser: sorted by total time, re-sortable, filterable, with each
// operator's shapes and dtypes in its tooltip, and the costliest operator among the findings.
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { operatorTable } from "@cg/parser";
import { describe, expect, it } from "vitest";
import { renderReport } from "../src/index.js";
import { browserForFile, openReport, screenshot, showView } from "./browser-harness.js";
import { demoTrace } from "./demo-trace.js";

const browser = browserForFile();

describe("Operators tab", () => {
  it("lists every operator with the parser's figures, sorts, filters and shows shapes on hover", async () => {
    const document = demoTrace();
    const expected = operatorTable(document).operators;
    expect(expected.length).toBeGreaterThan(3);
    const { page, problems } = await openReport(
      browser(),
      renderReport(document, { label: "demo.jsonl" }),
      "operators",
    );
    await expect(page.getByTestId("findings").innerText()).resolves.toMatch(
      new RegExp(
        `Costliest operator: ${expected[0]!.op_name}, [0-9.]+ (ns|µs|ms|s) over ${expected[0]!.calls} call`,
      ),
    );
    await showView(page, "operators");
    const table = page.getByTestId("operators");
    const names = () => table.locator("tbody tr td:first-child").allTextContents();
    await expect(names()).resolves.toEqual(expected.map((row) => row.op_name));
    const firstRow = await table.locator("tbody tr").first().locator("td").allTextContents();
    expect(firstRow[1]).toBe(String(expected[0]!.calls));
    const title = await table.locator("tbody tr td:first-child").first().getAttribute("title");
    expect(title).toContain(`shapes: ${expected[0]!.shapes.join(", ")}`);
    expect(title).toContain(`dtypes: ${expected[0]!.dtypes.join(", ")}`);
    await table.getByRole("button", { name: "Calls" }).click();
    // A numeric column sorts largest first on its first click.
    const byCalls = [...expected].sort((left, right) => right.calls - left.calls).map((row) => row.calls);
    const shownCalls = (await table.locator("tbody tr td:nth-child(2)").allTextContents()).map(Number);
    expect(shownCalls).toEqual(byCalls);
    await page.getByLabel("Filter operators").fill(expected[1]!.op_name);
    await expect(names()).resolves.toContain(expected[1]!.op_name);
    expect(
      (await names()).every((name) => name.toLowerCase().includes(expected[1]!.op_name.toLowerCase())),
    ).toBe(true);
    await page.getByLabel("Filter operators").fill("");
    await table.getByRole("button", { name: "Total" }).click();
    const shot = await screenshot(page, "operators-view");
    const docs = join(__dirname, "../../../docs/screenshots");
    mkdirSync(docs, { recursive: true });
    copyFileSync(shot, join(docs, "demo-operators.png"));
    expect(problems).toEqual([]);
  });
});

// Every accepted fixture (valid and health cases) gets a report that draws all views without a
// single console error, and whose verdict matches the manifest.
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { parseTrace } from "@cg/parser";
import { fixturesDir } from "@cg/tooling-vitest";
import { describe, expect, it } from "vitest";
import { renderReport } from "../src/index.js";
import { browserForFile, openReport, screenshot, showView } from "./browser-harness.js";

interface ManifestEntry {
  file: string;
  expect: "valid" | "parse_error" | "health";
  health?: { trusted: boolean; errors: string[]; warnings: string[] };
  summary?: { span_count: number; peak_bytes: number };
}

const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: ManifestEntry[];
};
const accepted = manifest.fixtures.filter((entry) => entry.expect !== "parse_error");

const browser = browserForFile();

describe("reports of the shared fixtures", () => {
  it("covers every accepted fixture", () => {
    expect(accepted.length).toBeGreaterThanOrEqual(20);
  });

  for (const entry of accepted) {
    it(`renders ${entry.file}`, async () => {
      const document = await parseTrace(join(fixturesDir, entry.file));
      const name = `fixture-${basename(entry.file, ".jsonl")}`;
      const { page, problems } = await openReport(
        browser(),
        renderReport(document, { label: entry.file }),
        name,
      );
      const trusted = entry.health?.trusted ?? true;
      await expect(page.getByTestId("verdict-badge").textContent()).resolves.toBe(
        trusted ? "TRUSTED" : "UNTRUSTED",
      );
      if (entry.summary) {
        await expect(page.getByTestId("span-count").locator(".tile-value").textContent()).resolves.toBe(
          String(entry.summary.span_count),
        );
        await expect(page.getByTestId("peak-bytes").textContent()).resolves.toContain(
          `${entry.summary.peak_bytes.toLocaleString("en-US")} bytes`,
        );
      }
      // Every health issue is listed by code, errors and gaps apart.
      for (const code of entry.health?.errors ?? []) {
        await expect(page.getByTestId("errors").textContent()).resolves.toContain(code);
      }
      for (const code of entry.health?.warnings ?? []) {
        await expect(page.getByTestId("gaps").textContent()).resolves.toContain(code);
      }
      for (const view of ["timeline", "spans", "memory", "gradients"]) await showView(page, view);
      if (entry.file === "health/h08-child-outside-parent.jsonl")
        await screenshot(page, "untrusted-gradients");
      expect(problems).toEqual([]);
      await page.close();
    });
  }
});

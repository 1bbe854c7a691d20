// Commands that stream a trace print exactly what the whole-document analyses give, on every
// shared fixture that parses (the figures of large traces are checked by `pnpm bench scale`).
import { join, relative } from "node:path";
import { fixturesDir } from "@cg/tooling-vitest";
import { analyzeHealth, queryTrace } from "@cg/trace";
import { describe, expect, it } from "vitest";
import { stringifyJson } from "../src/format/json-output.js";
import { createStyle } from "../src/format/style.js";
import { renderSummary } from "../src/views/render-summary.js";
import { buildSummaryView } from "../src/views/summary-view.js";
import { itOnEveryParsedFixture } from "./parsed-fixtures.js";
import { runInProcess } from "./run-in-process.js";

describe("summary streams the trace", () => {
  itOnEveryParsedFixture("prints the document's summary for %s", async ({ path, document }) => {
    for (const limit of [1, 10]) {
      const expected = buildSummaryView(document, path, limit);
      const json = await runInProcess(["summary", path, "--json", "--limit", String(limit)]);
      expect(json.exitCode).toBe(0);
      expect(json.stdout).toBe(`${stringifyJson(expected)}\n`);
      const text = await runInProcess(["summary", path, "--limit", String(limit)]);
      expect(text.stdout).toBe(renderSummary(expected, createStyle(false), limit));
    }
  });
});

describe("query --kind slowest|heaviest streams the trace", () => {
  itOnEveryParsedFixture("prints the document's rankings for %s", async ({ path, document }) => {
    for (const kind of ["slowest", "heaviest"] as const) {
      const expected = {
        health: analyzeHealth(document),
        result: queryTrace(document, kind, { limit: 2 }),
      };
      const { exitCode, stdout } = await runInProcess([
        "query",
        path,
        "--kind",
        kind,
        "--limit",
        "2",
        "--json",
      ]);
      expect(exitCode).toBe(0);
      expect(stdout).toBe(`${stringifyJson(expected)}\n`);
    }
  });
});

describe("validate streams the trace", () => {
  itOnEveryParsedFixture("prints the document's health for %s", async ({ path, document }) => {
    const health = analyzeHealth(document);
    const lines = health.issues.map((issue) => `${path}: ${issue.code}: ${issue.severity}: ${issue.message}`);
    const errors = health.issues.filter((issue) => issue.severity === "error").length;
    lines.push(
      `${path}: valid, ${health.trusted ? "trusted" : "untrusted"} (${errors} error(s), ${health.issues.length - errors} warning(s))`,
    );
    const { exitCode, stdout } = await runInProcess(["validate", path]);
    expect(stdout).toBe(`${lines.join("\n")}\n`);
    expect(exitCode).toBe(health.trusted ? 0 : 1);
  });

  it("stops past the span budget with a message that says what to do", async () => {
    const path = relative(process.cwd(), join(fixturesDir, "valid/golden-train.jsonl"));
    const { exitCode, stderr } = await runInProcess(["validate", path], {
      env: { CG_TRACE_SPAN_BUDGET_MB: "0.0001" },
    });
    expect(exitCode).toBe(2);
    expect(stderr).toContain("memory_budget");
    expect(stderr).toContain("CG_TRACE_SPAN_BUDGET_MB");
  });
});

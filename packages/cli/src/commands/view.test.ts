import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixturesDir } from "@cg/tooling-vitest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runInProcess } from "../../test/run-in-process.js";

const golden = join(fixturesDir, "valid/golden-train.jsonl");

function embeddedPayload(html: string): {
  title: string;
  candidate: {
    label: string;
    summary: { span_count: number; peak_bytes: number };
    health: { trusted: boolean };
  };
  comparison?: { comparable: boolean };
} {
  const match = /<script type="application\/json" id="cg-report-data">([^<]*)<\/script>/.exec(html);
  if (!match?.[1]) throw new Error("no embedded report data");
  return JSON.parse(match[1]);
}

describe("cg-trace view", () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "cg-view-"));
  });
  afterEach(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it("writes a self-contained HTML report of a trace", async () => {
    const output = join(directory, "report.html");
    const result = await runInProcess(["view", golden, "-o", output]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(`wrote ${output}`);
    const html = readFileSync(output, "utf8");
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).not.toMatch(/<script[^>]+src=|<link|https?:\/\//i);
    const payload = embeddedPayload(html);
    expect(payload.candidate.label).toBe("golden-train.jsonl");
    expect(payload.candidate.summary.span_count).toBe(5);
    expect(payload.candidate.summary.peak_bytes).toBe(4096);
    expect(payload.candidate.health.trusted).toBe(true);
  });

  it("adds the comparison with --baseline and honours --title", async () => {
    const output = join(directory, "compare.html");
    const result = await runInProcess([
      "view",
      golden,
      "--baseline",
      golden,
      "--title",
      "golden vs golden",
      "-o",
      output,
    ]);
    expect(result.exitCode).toBe(0);
    const payload = embeddedPayload(readFileSync(output, "utf8"));
    expect(payload.title).toBe("golden vs golden");
    expect(payload.comparison?.comparable).toBe(true);
  });

  it("reports usage errors and unreadable traces with exit code 2", async () => {
    const missingOutput = await runInProcess(["view", golden]);
    expect(missingOutput.exitCode).toBe(2);
    expect(missingOutput.stderr).toContain("-o/--output");
    const output = join(directory, "never.html");
    const missingTrace = await runInProcess(["view", join(directory, "absent.jsonl"), "-o", output]);
    expect(missingTrace.exitCode).toBe(2);
    const invalid = await runInProcess([
      "view",
      join(fixturesDir, "invalid/n01-meta-not-first.jsonl"),
      "-o",
      output,
    ]);
    expect(invalid.exitCode).toBe(2);
    expect(existsSync(output)).toBe(false);
  });

  it("is part of cg-trace demo's output", async () => {
    const result = await runInProcess(["demo", "--out", directory, "--no-gpu"]);
    expect(result.exitCode).toBe(0);
    const payload = embeddedPayload(readFileSync(join(directory, "report.html"), "utf8"));
    expect(payload.candidate.health.trusted).toBe(true);
    expect(payload.candidate.summary.span_count).toBeGreaterThan(3);
  });
});

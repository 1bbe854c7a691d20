// `cg-trace view` through the built binary on a generated writer-shaped trace: it streams each trace
// (twice) instead of parsing it, and the report it writes carries exactly the payload the
// document-based builder makes of the parsed trace, alone and with a baseline.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildReportPayload, type ReportPayload } from "@cg/report";
import { parseTrace } from "@cg/trace";
import { beforeAll, describe, expect, it } from "vitest";
import { generateWriterShapedTrace } from "../../../bench/src/support/writer-shaped-trace.js";
import { ensureBuilt, runBinary } from "./built-binary.js";
import { scratchDirForFile } from "./test-files.js";

const scratch = scratchDirForFile("cg-cli-view-");
const candidate = join(scratch, "candidate.jsonl");
const baseline = join(scratch, "baseline.jsonl");

beforeAll(() => {
  ensureBuilt();
  generateWriterShapedTrace(candidate, 5 << 20);
  generateWriterShapedTrace(baseline, 2 << 20, "bench::baseline");
}, 300_000);

/** The payload embedded in a report page. */
function payloadOf(path: string): ReportPayload {
  const html = readFileSync(path, "utf8");
  const match = /<script type="application\/json" id="cg-report-data">([^<]*)<\/script>/.exec(html);
  if (match === null) throw new Error(`no payload in ${path}`);
  return JSON.parse(match[1] as string) as ReportPayload;
}

describe("cg-trace view (built binary)", () => {
  it("writes the document's report of a 5 MB trace, downsampled and folded", async () => {
    const out = join(scratch, "alone.html");
    const run = runBinary(["view", candidate, "-o", out], { cwd: scratch });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^wrote .*alone\.html \(/);
    const expected = buildReportPayload(await parseTrace(candidate), { label: "candidate.jsonl" });
    const series = expected.candidate.memory.series[0];
    expect(series?.points.length).toBeLessThan(series?.points_total ?? 0);
    expect(expected.candidate.timeline.ops_aggregated).toBe(true);
    expect(payloadOf(out)).toEqual(JSON.parse(JSON.stringify(expected)));
  }, 120_000);

  it("writes the document's report with a baseline", async () => {
    const out = join(scratch, "compared.html");
    const run = runBinary(["view", candidate, "--baseline", baseline, "--title", "t", "-o", out], {
      cwd: scratch,
    });
    expect(run.status).toBe(0);
    const expected = buildReportPayload(await parseTrace(candidate), {
      title: "t",
      label: "candidate.jsonl",
      baseline: await parseTrace(baseline),
      baselineLabel: "baseline.jsonl",
    });
    expect(expected.comparison?.comparable).toBe(false); // another entrypoint
    expect(payloadOf(out)).toEqual(JSON.parse(JSON.stringify(expected)));
  }, 120_000);

  it("names the baseline's file and line when the baseline does not parse", () => {
    const broken = join(scratch, "broken.jsonl");
    writeFileSync(
      broken,
      `${readFileSync(baseline, "utf8").split("\n").slice(0, 5).join("\n")}\n{"kind":"op"\n`,
    );
    const run = runBinary(["view", candidate, "--baseline", broken, "-o", join(scratch, "x.html")], {
      cwd: scratch,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`^cg-trace: ${broken.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:6: `));
  }, 120_000);
});

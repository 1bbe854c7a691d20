// The streamed report (two reads, no document) equals the document's report, payload for payload:
// on every shared fixture, on the demo capture, and on a large capture where every cap applies
// (small limits force downsampling, folded op marks and cut tables).
import { join } from "node:path";
import { parseTrace, parseTraceText, type TraceSource } from "@cg/parser";
import { acceptedFixtures, fixturesDir } from "@cg/tooling-vitest";
import { describe, expect, it } from "vitest";
import {
  buildReportPayload,
  buildStreamedReportPayload,
  DEFAULT_REPORT_LIMITS,
  type ReportLimits,
  renderReport,
  renderStreamedReport,
} from "../src/index.js";
import { demoTraceText } from "./demo-trace.js";
import { largeTraceText } from "./large-trace.js";

describe("streamed report", () => {
  it.each(acceptedFixtures)("equals the document's report: %s", async (file) => {
    const path = join(fixturesDir, file);
    const document = await parseTrace(path);
    const streamed = await buildStreamedReportPayload(path, { label: file });
    expect(streamed).toEqual(buildReportPayload(document, { label: file }));
  });

  it("equals the document's report on the demo capture, as HTML too", async () => {
    const text = demoTraceText();
    const document = parseTraceText(text);
    expect(await renderStreamedReport({ text }, { title: "demo" })).toBe(
      renderReport(document, { title: "demo" }),
    );
  });

  it("equals the document's report with a baseline", async () => {
    const baselineText = demoTraceText();
    const candidateText = demoTraceText({
      slowdown: 1.3,
      extraActivationBytes: 4096,
      lastBiasState: "non_finite",
      layers: 5,
    });
    const expected = buildReportPayload(parseTraceText(candidateText), {
      label: "candidate.jsonl",
      baseline: parseTraceText(baselineText),
      baselineLabel: "baseline.jsonl",
    });
    expect(expected.comparison?.paths.length).toBeGreaterThan(0);
    expect(expected.comparison?.gradient_changes.length).toBeGreaterThan(0);
    const streamed = await buildStreamedReportPayload(
      { text: candidateText },
      { label: "candidate.jsonl", baseline: { text: baselineText }, baselineLabel: "baseline.jsonl" },
    );
    expect(streamed).toEqual(expected);
  });

  it.each(acceptedFixtures)("equals the document's report against the golden baseline: %s", async (file) => {
    const path = join(fixturesDir, file);
    const golden = join(fixturesDir, "valid/golden-train.jsonl");
    const expected = buildReportPayload(await parseTrace(path), { baseline: await parseTrace(golden) });
    expect(await buildStreamedReportPayload(path, { baseline: golden })).toEqual(expected);
  });

  it("equals the document's report where every cap applies", async () => {
    const text = largeTraceText(30_000);
    const document = parseTraceText(text);
    const limits: Partial<ReportLimits> = {
      timelineSpans: 300,
      timelineOps: 400,
      spanCostRows: 20,
      memoryPoints: 97,
      peakAllocations: 5,
      gradientRows: 3,
      operatorRows: 2,
    };
    const expected = buildReportPayload(document, { limits });
    const bytes = new TextEncoder().encode(text);
    // A fresh chunked stream per read, as the CLI gives one with progress.
    const read = (): TraceSource =>
      (function* () {
        for (let at = 0; at < bytes.length; at += 4093) yield bytes.subarray(at, at + 4093);
      })();
    const streamed = await buildStreamedReportPayload(read, { limits });
    expect(streamed).toEqual(expected);
    const candidate = streamed.candidate;
    expect(candidate.timeline.ops_aggregated).toBe(true);
    expect(candidate.timeline.spans.length).toBeLessThan(candidate.timeline.spans_total);
    expect(candidate.memory.series[0]?.points.length).toBeLessThanOrEqual(97);
    expect(candidate.memory.series[0]?.points_total).toBeGreaterThan(97);
    expect(candidate.operators.rows).toHaveLength(2);
    expect(candidate.reductions.join("\n")).toMatch(/Memory on .*: \d+ of \d+ timeline points/);
  });

  it("keeps every op mark while they fit, as the document does", async () => {
    const text = largeTraceText(2_000);
    const limits = { ...DEFAULT_REPORT_LIMITS, timelineSpans: 40 };
    const expected = buildReportPayload(parseTraceText(text), { limits });
    expect(expected.candidate.timeline.ops_aggregated).toBe(false);
    expect(await buildStreamedReportPayload({ text }, { limits })).toEqual(expected);
  });

  it("refuses a one-shot stream, which it cannot read twice", async () => {
    const once = (async function* () {
      yield "";
    })();
    await expect(buildStreamedReportPayload(once as never)).rejects.toThrow(/reads its trace twice/);
  });
});

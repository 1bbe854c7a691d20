import { readFileSync } from "node:fs";
import { join } from "node:path";
import { analyzeMemory } from "@cg/memory";
import { fixturesDir } from "@cg/tooling-vitest";
import { describe, expect, it } from "vitest";
import { analyzeHealth, parseTrace, summarize } from "./index.js";

interface ManifestEntry {
  file: string;
  expect: "valid" | "parse_error" | "health";
  summary?: Record<string, number>;
  health?: { trusted: boolean; errors: string[]; warnings: string[] };
  memory_analysis?: {
    peak_breakdown: string[];
    by_device: Record<string, unknown>[];
    [key: string]: unknown;
  };
  /** Only where given: every memory timeline point's `by_category`, in order. */
  memory_timeline_by_category?: Record<string, number>[];
}

const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: ManifestEntry[];
};
const accepted = manifest.fixtures.filter((entry) => entry.expect !== "parse_error");

describe("summary, health and memory of every accepted fixture", () => {
  it.each(accepted.map((entry) => [entry.file, entry] as const))("%s", async (file, entry) => {
    const document = await parseTrace(join(fixturesDir, file));
    const { self_times, ...summary } = summarize(document);
    expect(summary).toEqual(entry.summary);
    expect(self_times.map((time) => time.id)).toEqual(document.spans.map((span) => span.id));

    for (const compat of ["union", "reference"] as const) {
      const health = analyzeHealth(document, { compat });
      expect(health.trusted).toBe(entry.health?.trusted);
      expect(health.issues.filter((issue) => issue.severity === "error").map((issue) => issue.code)).toEqual(
        entry.health?.errors,
      );
      expect(
        health.issues.filter((issue) => issue.severity === "warning").map((issue) => issue.code),
      ).toEqual(entry.health?.warnings);
    }

    const memory = analyzeMemory({
      memory: document.memory,
      spans: document.spans,
      device_memory: document.device_memory,
    });
    const { timeline, peak_breakdown, ...figures } = memory;
    if (entry.memory_timeline_by_category !== undefined) {
      expect(timeline.map((point) => point.by_category)).toEqual(entry.memory_timeline_by_category);
    }
    const expected = entry.memory_analysis;
    if (expected === undefined) return;
    const { peak_breakdown: expectedBreakdown, ...expectedFigures } = expected;
    expect(figures).toEqual(expectedFigures);
    expect(peak_breakdown.map((allocation) => allocation.tensor_id)).toEqual(expectedBreakdown);
  });
});

describe("health details", () => {
  it("reports coverage of the golden trace (spec Appendix A)", async () => {
    const document = await parseTrace(join(fixturesDir, "valid/golden-train.jsonl"));
    expect(analyzeHealth(document)).toEqual({
      trusted: true,
      issues: [],
      coverage: {
        spans: 5,
        closed_spans: 5,
        root_spans: 1,
        measured_spans: 1,
        operations: 1,
        tensors: 1,
        memory_events: 2,
        device_memory_samples: 1,
        gradients: 2,
        edges: 0,
        forward_spans: 1,
        backward_spans: 1,
        optimizer_spans: 1,
      },
    });
  });

  it("words messages like the reference", async () => {
    const messages = async (file: string) =>
      analyzeHealth(await parseTrace(join(fixturesDir, file)))
        .issues.filter((issue) => issue.code !== "operations_absent" && !issue.code.endsWith("_absent"))
        .map((issue) => issue.message);
    expect(await messages("health/h01-measurement-count.jsonl")).toEqual([
      "expected exactly one measured region, found 0",
    ]);
    expect(await messages("health/h02-open-span.jsonl")).toEqual(["span `s5` was not closed"]);
    expect(await messages("health/h03-unknown-span.jsonl")).toEqual([
      "operation evidence refers to missing span `s99`",
    ]);
    expect(await messages("health/h04-duplicate-allocation.jsonl")).toEqual([
      "tensor `t2` was allocated twice without a free",
      "1 explicit allocations remained live at measurement end",
    ]);
    expect(await messages("health/h09-children-exceed-parent.jsonl")).toEqual([
      "span `s3` interval 60..140 is outside parent `s1` interval 0..100",
      "children of span `s1` total 140 ns, exceeding its 100 ns duration",
    ]);
  });
});

// Every streamed entry point against the fixtures' reference-made expectations (the manifest's
// summary, health, counts and memory analysis), not against another path of this package: a rule
// broken in the one fold fails here even where the document path shares it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { MemoryAnalysis, MemoryTimelinePoint } from "@cg/memory";
import { fixturesDir } from "@cg/tooling-vitest";
import { describe, expect, it } from "vitest";
import { checkColumns, type HealthReport, summarizeColumns, summarizeStream } from "./index.js";

interface ManifestEntry {
  file: string;
  expect: "valid" | "parse_error" | "health";
  counts?: Record<"spans" | "ops" | "tensors" | "memory" | "device_memory" | "gradients" | "edges", number>;
  summary?: Record<string, number>;
  health?: { trusted: boolean; errors: string[]; warnings: string[] };
  memory_analysis?: { peak_breakdown: string[]; [key: string]: unknown };
  memory_timeline_by_category?: Record<string, number>[];
}

const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: ManifestEntry[];
};
const accepted = manifest.fixtures.filter((entry) => entry.expect !== "parse_error");

function expectHealth(health: HealthReport, entry: ManifestEntry): void {
  const codes = (severity: string) =>
    health.issues.filter((issue) => issue.severity === severity).map((issue) => issue.code);
  expect({ trusted: health.trusted, errors: codes("error"), warnings: codes("warning") }).toEqual(
    entry.health,
  );
  const { counts } = entry;
  if (counts === undefined) return;
  expect(health.coverage).toMatchObject({
    spans: counts.spans,
    operations: counts.ops,
    tensors: counts.tensors,
    memory_events: counts.memory,
    device_memory_samples: counts.device_memory,
    gradients: counts.gradients,
    edges: counts.edges,
  });
}

function expectMemory(memory: MemoryAnalysis, entry: ManifestEntry): void {
  const expected = entry.memory_analysis;
  if (expected === undefined) return;
  const { timeline, peak_breakdown, ...figures } = memory;
  const { peak_breakdown: expectedBreakdown, ...expectedFigures } = expected;
  expect(timeline).toEqual([]);
  expect(figures).toEqual(expectedFigures);
  expect(peak_breakdown.map((allocation) => allocation.tensor_id)).toEqual(expectedBreakdown);
}

describe("streamed analyses against the fixtures' expectations", () => {
  it.each(accepted.map((entry) => [entry.file, entry] as const))("%s", async (file, entry) => {
    const path = join(fixturesDir, file);
    for (const compat of ["union", "reference"] as const) {
      const points: MemoryTimelinePoint[] = [];
      const streamed = await summarizeStream(path, { compat, onMemoryPoint: (point) => points.push(point) });
      expect(streamed.summary).toEqual(entry.summary);
      expectHealth(streamed.health, entry);
      expectMemory(streamed.memory, entry);
      expect(streamed.exact).toBe(true);
      if (entry.memory_timeline_by_category !== undefined) {
        expect(points.map((point) => point.by_category)).toEqual(entry.memory_timeline_by_category);
      }

      // The column fold at any batch size, with every optional figure on.
      for (const batchSize of [1, 2, 8192]) {
        const columns = await summarizeColumns(path, { compat, batchSize, rankLimit: 2, spanCosts: true });
        expect(columns.summary).toEqual(entry.summary);
        expectHealth(columns.health, entry);
        expectMemory(columns.memory, entry);
        expect(columns.spanCosts?.size).toBe(entry.counts?.spans);
      }
      expectHealth((await checkColumns(path, { compat })).health, entry);
    }
  });
});

// The manifest's `memory_analysis` expectation for every valid/ and health/ fixture.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type DeviceMemoryEvent,
  decodeTraceLine,
  type MemoryEvent,
  type SpanStartEvent,
  trimTraceLine,
} from "@cg/schema";
import { fixturesDir } from "@cg/tooling-vitest";
import { describe, expect, it } from "vitest";
import { analyzeMemory } from "./analyze-memory.js";

interface ManifestEntry {
  file: string;
  expect: "valid" | "parse_error" | "health";
  memory_analysis?: Record<string, unknown> & { peak_breakdown: string[] };
  /** Only where given: every timeline point's `by_category` map, in timeline order. */
  memory_timeline_by_category?: Record<string, number>[];
}

const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: ManifestEntry[];
};
const cases = manifest.fixtures.filter((entry) => entry.expect !== "parse_error");

function readFixture(file: string) {
  const memory: MemoryEvent[] = [];
  const deviceMemory: DeviceMemoryEvent[] = [];
  const spans: SpanStartEvent[] = [];
  const lines = readFileSync(join(fixturesDir, file), "utf8").split("\n");
  lines.forEach((line, index) => {
    const trimmed = trimTraceLine(line);
    if (trimmed === "") return;
    // Only the kinds the analysis reads are decoded, so unrelated decoder work cannot mask these tests.
    const { kind } = JSON.parse(trimmed) as { kind?: unknown };
    if (kind !== "memory" && kind !== "device_memory" && kind !== "span_start") return;
    const decoded = decodeTraceLine(trimmed);
    if (!decoded.ok) throw new Error(`${file}:${index + 1}: ${decoded.error.message}`);
    const event = decoded.event;
    if (event.kind === "memory") memory.push(event);
    else if (event.kind === "device_memory") deviceMemory.push(event);
    else if (event.kind === "span_start") spans.push(event);
  });
  return { memory, device_memory: deviceMemory, spans };
}

describe("analyzeMemory against the fixture manifest", () => {
  it("covers every valid and health fixture", () => {
    expect(cases.length).toBeGreaterThanOrEqual(23);
    expect(cases.every((entry) => entry.memory_analysis !== undefined)).toBe(true);
  });

  it.each(cases.map((entry) => [entry.file, entry] as const))("%s", (_file, entry) => {
    const input = readFixture(entry.file);
    const result = analyzeMemory(input);
    const { peak_breakdown: breakdown, ...expected } = entry.memory_analysis ?? { peak_breakdown: [] };
    expect(result).toMatchObject(expected);
    expect(Object.keys(result.peak_by_category)).toEqual(Object.keys(expected.peak_by_category as object));
    expect(result.peak_breakdown.map((allocation) => allocation.tensor_id)).toEqual(breakdown);
    expect(result.timeline).toHaveLength(input.memory.length);
    if (entry.memory_timeline_by_category !== undefined) {
      const maps = result.timeline.map((point) => point.by_category);
      expect(maps).toEqual(entry.memory_timeline_by_category);
      // Same keys in the same (byte) order, not only equal as objects.
      expect(maps.map((map) => Object.keys(map))).toEqual(
        entry.memory_timeline_by_category.map((map) => Object.keys(map)),
      );
    }
  });

  it("checks the timeline's category maps of the free-on-another-device case", () => {
    const entry = cases.find((candidate) => candidate.file === "health/free-on-other-device-category.jsonl");
    expect(entry?.memory_timeline_by_category).toEqual([
      { activation: 100 },
      {},
      { gradient: 500 },
      { gradient: 0 },
    ]);
  });
});

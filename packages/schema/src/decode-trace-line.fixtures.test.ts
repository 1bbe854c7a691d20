// Conformance against the shared fixtures (manifest.json): every event line of every valid/ and
// health/ fixture decodes; every line-stage parse_error is rejected at its stated physical line.
import { describe, expect, it } from "vitest";
import { physicalLines, readManifest } from "../test/fixtures.js";
import { compareCodePoints } from "./code-point-order.js";
import { decodeTraceLine } from "./decode-trace-line.js";
import type { MetaEvent, TraceEvent } from "./events.js";
import { trimTraceLine } from "./trim-trace-line.js";

const manifest = { fixtures: readManifest() };

const countKey: Record<TraceEvent["kind"], string | undefined> = {
  meta: undefined,
  span_start: "spans",
  span_end: undefined,
  op: "ops",
  tensor: "tensors",
  memory: "memory",
  device_memory: "device_memory",
  gradient: "gradients",
  edge: "edges",
};

describe("accepted fixtures", () => {
  const accepted = manifest.fixtures.filter((entry) => entry.expect !== "parse_error");
  it("covers the valid and health sets", () => {
    expect(accepted.length).toBeGreaterThanOrEqual(20);
  });
  it.each(accepted.map((entry) => [entry.file, entry] as const))(
    "%s decodes line by line",
    (_file, entry) => {
      const counts: Record<string, number> = {};
      const norms: (number | null)[] = [];
      let meta: MetaEvent | undefined;
      let events = 0;
      for (const [index, raw] of physicalLines(entry.file).entries()) {
        const line = trimTraceLine(raw);
        if (line === "") continue;
        const result = decodeTraceLine(line);
        if (!result.ok) throw new Error(`${entry.file}:${index + 1}: ${result.error.message}`);
        events++;
        const key = countKey[result.event.kind];
        if (key !== undefined) counts[key] = (counts[key] ?? 0) + 1;
        if (result.event.kind === "gradient") norms.push(result.event.norm ?? null);
        if (result.event.kind === "meta") meta = result.event;
      }
      if (entry.resolved !== undefined) {
        // Compare numerically, with -0 told apart from 0.
        const label = (value: number | null) => (value === null ? null : Object.is(value, -0) ? "-0" : value);
        expect(norms.map(label)).toEqual(
          entry.resolved.gradient_norms.map((text) => label(text === null ? null : Number(text))),
        );
      }
      if (entry.meta !== undefined) {
        expect(meta?.measured_region_device_synchronized).toBe(
          entry.meta.measured_region_device_synchronized,
        );
        expect(meta?.candle_version ?? null).toBe(entry.meta.candle_version);
        expect(Object.keys(meta?.tags ?? {}).sort(compareCodePoints)).toEqual(entry.meta.tag_keys);
      }
      expect(events).toBeGreaterThan(0);
      for (const [key, expected] of Object.entries(entry.counts ?? {})) {
        expect(counts[key] ?? 0, key).toBe(expected);
      }
    },
  );
});

describe("line-stage rejections", () => {
  const rejected = manifest.fixtures.filter(
    (entry) => entry.expect === "parse_error" && entry.stage === "line",
  );
  it("covers N8–N15", () => {
    expect(rejected.length).toBeGreaterThanOrEqual(12);
  });
  it.each(rejected.map((entry) => [entry.file, entry] as const))("%s fails at its line", (_file, entry) => {
    let failure: { line: number; message: string } | undefined;
    for (const [index, raw] of physicalLines(entry.file).entries()) {
      const line = trimTraceLine(raw);
      if (line === "") continue;
      const result = decodeTraceLine(line);
      if (!result.ok) {
        failure = { line: index + 1, message: result.error.message };
        break;
      }
    }
    expect(failure?.line).toBe(entry.line);
    expect(failure?.message).toContain(entry.error_contains);
  });
});

describe("stream-stage fixtures", () => {
  const streamOnly = manifest.fixtures.filter(
    (entry) => entry.expect === "parse_error" && entry.stage === "stream",
  );
  it.each(streamOnly.map((entry) => [entry.file, entry] as const))(
    "%s has only decodable lines",
    (_file, entry) => {
      for (const raw of physicalLines(entry.file)) {
        const line = trimTraceLine(raw);
        if (line !== "") expect(decodeTraceLine(line).ok).toBe(true);
      }
    },
  );
});

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fixturesDir } from "@cg/tooling-vitest";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareCodePoints } from "./code-point-order.js";
import { encodeGradientEvent, encodeMetaEvent, encodeOpEvent, encodeTraceEvent } from "./encode-events.js";
import { encodeJsonString } from "./encode-string.js";
import { MetaEvent, OpEvent, TraceEvent } from "./events.js";
import { U64_MAX } from "./u64.js";

interface ManifestEntry {
  file: string;
  expect: string;
  canonical_lines?: boolean;
}

const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: ManifestEntry[];
};

function nonBlankLines(file: string): string[] {
  return readFileSync(join(fixturesDir, file), "utf8")
    .split("\n")
    .map((line) => line.replace(/\r$/, "").trim())
    .filter((line) => line.length > 0);
}

const meta = MetaEvent.parse({
  kind: "meta",
  schema: "candle-graph/trace/6",
  run_id: "r",
  correlation_id: "c",
  entrypoint: "e",
  phase: "train",
  timestamp: "2026-01-01T00:00:00.000Z",
  capture_step: 1,
  warmup_steps: 0,
  device: "cpu",
  timing_mode: "host",
  tags: {},
});

describe("canonical encoders", () => {
  const canonical = manifest.fixtures.filter((entry) => entry.canonical_lines === true);

  it("covers at least the golden trace", () => {
    expect(canonical.map((entry) => entry.file)).toContain("valid/golden-train.jsonl");
  });

  it.each(canonical.map((entry) => entry.file))("re-encodes every line of %s byte for byte", (file) => {
    for (const line of nonBlankLines(file)) {
      const event = TraceEvent.parse(JSON.parse(line));
      expect(encodeTraceEvent(event)).toBe(line);
    }
  });

  it("writes tags in code-point order, not object enumeration order", () => {
    const line = encodeMetaEvent({ ...meta, tags: { "9": "b", "10": "a", "～": "x", "😀": "y", a: "z" } });
    expect(line).toContain(`"tags":{"10":"a","9":"b","a":"z","～":"x","😀":"y"}`);
  });

  it("writes exact u64 digits up to 2^64 − 1 and rejects what the wire cannot carry", () => {
    const op = OpEvent.parse({
      kind: "op",
      span_id: "s",
      op_name: "big",
      dtype: "f64",
      device: "cpu",
      duration_ns: 1,
    });
    expect(encodeOpEvent({ ...op, storage_bytes: U64_MAX })).toContain(
      `"storage_bytes":18446744073709551615,`,
    );
    expect(() => encodeOpEvent({ ...op, duration_ns: -1 })).toThrow(/op.duration_ns/);
    expect(() => encodeOpEvent({ ...op, duration_ns: 1.5 })).toThrow(/op.duration_ns/);
    expect(() => encodeOpEvent({ ...op, duration_ns: 2 ** 60 })).toThrow(/op.duration_ns/);
    expect(() => encodeOpEvent({ ...op, shape: [1, U64_MAX + 1n] })).toThrow(/op.shape\[1\]/);
  });

  it("writes a non-finite norm as null and an absent norm not at all", () => {
    const base = { kind: "gradient", event_id: "g", root: "vb", key: "w", state: "non_finite" } as const;
    expect(encodeGradientEvent({ ...base, norm: Number.NaN })).toBe(
      `{"kind":"gradient","event_id":"g","root":"vb","key":"w","state":"non_finite","norm":null}`,
    );
    expect(encodeGradientEvent(base)).not.toContain("norm");
    expect(encodeGradientEvent({ ...base, state: "present", norm: 3 })).toContain(`"norm":3.0}`);
  });

  it("escapes strings like the reference and never writes a lone surrogate", () => {
    expect(encodeJsonString('a"b\\c\n\u0001\u007f\u2028é')).toBe('"a\\"b\\\\c\\n\\u0001\u007f\u2028é"');
    expect(encodeJsonString("x\ud800y")).toBe('"x\ufffdy"');
  });

  it("round-trips any string through JSON.parse", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (value) => {
        const decoded = JSON.parse(encodeJsonString(value)) as string;
        expect(decoded).toBe((value as unknown as { toWellFormed(): string }).toWellFormed());
      }),
    );
  });
});

describe("compareCodePoints", () => {
  it("orders by code point, like UTF-8 bytes", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" }), (left, right) => {
        const bytes = Buffer.compare(Buffer.from(left), Buffer.from(right));
        expect(Math.sign(compareCodePoints(left, right))).toBe(bytes);
      }),
      { numRuns: 5_000 },
    );
  });
});

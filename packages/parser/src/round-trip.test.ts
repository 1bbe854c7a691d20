import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decodeTraceLine, encodeTraceEvent, trimTraceLine } from "@cg/schema";
import { fixturesDir } from "@cg/tooling-vitest";
import { describe, expect, it } from "vitest";
import { parseTraceText, serializeDocument } from "./index.js";

const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: { file: string; expect: string; canonical_lines?: boolean }[];
};
const accepted = manifest.fixtures.filter((entry) => entry.expect !== "parse_error");

describe("re-serialisation (spec §4.5, §9.3)", () => {
  it.each(accepted.map((entry) => [entry.file, entry] as const))("%s", (file, entry) => {
    const bytes = readFileSync(join(fixturesDir, file));
    const document = parseTraceText(bytes);
    const first = serializeDocument(document);
    // parse(serialize(doc)) equals doc, and serialising again is byte-stable.
    const reparsed = parseTraceText(first);
    expect(reparsed).toEqual(document);
    expect(serializeDocument(reparsed)).toBe(first);
    if (entry.canonical_lines) {
      // Canonical input: every line of the output is one of the input's lines (re-ordered per §4.5).
      const inputLines = new Set(
        bytes
          .toString("utf8")
          .split("\n")
          .map((line) => trimTraceLine(line))
          .filter((line) => line.length > 0),
      );
      for (const line of first.trimEnd().split("\n")) {
        const decoded = decodeTraceLine(line);
        expect(decoded.ok).toBe(true);
        if (decoded.ok && decoded.event.kind !== "op" && decoded.event.kind !== "tensor") {
          expect(inputLines.has(line)).toBe(true);
        }
      }
    }
  });

  it("keeps the golden trace's event set and re-serialises in span-grouped order", () => {
    const text = readFileSync(join(fixturesDir, "valid/golden-train.jsonl"), "utf8");
    const output = serializeDocument(parseTraceText(text));
    const inputLines = text.trimEnd().split("\n");
    const outputLines = output.trimEnd().split("\n");
    expect([...outputLines].sort()).toEqual([...inputLines].sort());
    expect(output.endsWith("}\n")).toBe(true);
    expect(outputLines.slice(0, 3).map((line) => JSON.parse(line).kind)).toEqual([
      "meta",
      "span_start",
      "span_end",
    ]);
    expect(outputLines[1]).toContain('"id":"s1"');
    expect(outputLines[2]).toBe('{"kind":"span_end","id":"s1","duration_ns":100000}');
    for (const line of outputLines) {
      const decoded = decodeTraceLine(line);
      expect(decoded.ok && encodeTraceEvent(decoded.event)).toBe(line);
    }
  });

  it("keeps u64 values above 2^53 exactly", () => {
    const text = [
      '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"infer","timestamp":"t","capture_step":1,"warmup_steps":0,"device":"cpu","timing_mode":"host","tags":{}}',
      '{"kind":"span_start","id":"s1","name":"root","start_ns":9007199254740993,"span_kind":"function","measured":true}',
      '{"kind":"span_end","id":"s1","duration_ns":18446744073709551615}',
      '{"kind":"op","span_id":"s1","op_name":"big","shape":[4294967296,4294967296,2],"dtype":"f64","device":"cpu","duration_ns":1}',
    ].join("\n");
    const document = parseTraceText(text);
    expect(document.spans[0]?.start_ns).toBe(9007199254740993n);
    expect(document.spans[0]?.duration_ns).toBe(18446744073709551615n);
    expect(document.ops[0]?.storage_bytes).toBe(18446744073709551615n);
    const output = serializeDocument(document);
    expect(output).toContain('"start_ns":9007199254740993');
    expect(output).toContain('"duration_ns":18446744073709551615}');
    expect(output).toContain('"storage_bytes":18446744073709551615');
  });
});

// The health of a document built in memory: what its stream cannot carry (a repeated span id) is
// still reported, first, as step 1 of spec §12.1 asks.
import { describe, expect, it } from "vitest";
import { analyzeHealth, parseTraceText } from "./index.js";

const TEXT = [
  '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"infer","timestamp":"t","capture_step":1,"warmup_steps":0,"device":"cpu","timing_mode":"host","tags":{}}',
  '{"kind":"span_start","id":"root","name":"root","start_ns":0,"span_kind":"function","measured":true}',
  '{"kind":"span_end","id":"root","duration_ns":10}',
  "",
].join("\n");

describe("analyzeHealth of a document built in memory", () => {
  it("reports a repeated span id first and counts every record", () => {
    const document = parseTraceText(TEXT);
    const clean = analyzeHealth(document);
    document.spans.push({ ...(document.spans[0] as (typeof document.spans)[number]) });
    const health = analyzeHealth(document);
    expect(health.trusted).toBe(false);
    expect(health.issues[0]).toEqual({
      severity: "error",
      code: "duplicate_span_id",
      message: "span IDs must be unique; found 2 records but 1 unique IDs",
    });
    expect(health.issues.slice(1)).toEqual(clean.issues);
    expect(health.coverage).toEqual({ ...clean.coverage, spans: 2 });
  });
});

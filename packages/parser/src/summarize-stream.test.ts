import { readFileSync } from "node:fs";
import { join } from "node:path";
import { analyzeMemory } from "@cg/memory";
import { fixturesDir } from "@cg/tooling-vitest";
import { describe, expect, it } from "vitest";
import {
  analyzeHealth,
  parseTrace,
  queryTrace,
  summarize,
  summarizeStream,
  type TraceDocument,
} from "./index.js";

const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: { file: string; expect: string }[];
};
const accepted = manifest.fixtures.filter((entry) => entry.expect !== "parse_error");

/** The streamed rankings' expectation: the document queries "slowest" and "heaviest". */
function documentRankings(document: TraceDocument, limit: number) {
  const slowest = queryTrace(document, "slowest", { limit });
  const heaviest = queryTrace(document, "heaviest", { limit });
  return {
    slowest_spans: slowest.slowest_spans,
    slowest_ops: slowest.slowest_ops,
    heaviest_spans: heaviest.heaviest_spans,
    heaviest_ops: heaviest.heaviest_ops,
  };
}

describe("summarizeStream", () => {
  it.each(accepted.map((entry) => [entry.file] as const))(
    "matches the document analyses for %s",
    async (file) => {
      const path = join(fixturesDir, file);
      const document = await parseTrace(path);
      const streamed = await summarizeStream(path, { rankLimit: 3 });
      const { self_times: _selfTimes, ...summary } = summarize(document);
      expect(streamed.summary).toEqual(summary);
      expect(streamed.rankings).toEqual(documentRankings(document, 3));
      expect(streamed.health).toEqual(analyzeHealth(document));
      expect(streamed.memory).toEqual(
        analyzeMemory(
          { memory: document.memory, spans: document.spans, device_memory: document.device_memory },
          { timeline: false },
        ),
      );
      expect(streamed.exact).toBe(true);
      expect(streamed.run).toEqual(document.run);
    },
  );

  const header =
    '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"infer","timestamp":"t","capture_step":1,"warmup_steps":0,"device":"cpu","timing_mode":"host","tags":{}}\n' +
    '{"kind":"span_start","id":"s1","name":"root","start_ns":0,"span_kind":"function","measured":true}\n';
  const memory = (timestamp: number, tensor: string, action: string, bytes: number) =>
    `{"kind":"memory","timestamp_ns":${timestamp},"tensor_id":"${tensor}","span_id":"s1","device":"cpu","bytes":${bytes},"action":"${action}","dtype":"u8"}\n`;
  // The free of `a` is written before its alloc and before `b`: sorted, `a` and `b` never overlap.
  const late =
    header +
    memory(30, "b", "alloc", 50) +
    memory(40, "b", "free", 50) +
    memory(20, "a", "free", 100) +
    memory(10, "a", "alloc", 100) +
    '{"kind":"span_end","id":"s1","duration_ns":100}\n';

  it("ranks a span's ops written before and after its start as the document queries do", async () => {
    const op = (span: string, ns: number) =>
      `{"kind":"op","span_id":"${span}","op_name":"mm","inputs":[],"shape":[2],"dtype":"f32","device":"cpu","duration_ns":${ns},"timestamp_ns":1,"storage_bytes":8,"input_storage_bytes":0}\n`;
    // s2's first ops come before its start, then more after it with no other span's op between:
    // a span row remembered for a run of ops must not outlive the span's start.
    const text =
      header +
      op("s2", 5) +
      op("s2", 7) +
      '{"kind":"span_start","id":"s2","parent_id":"s1","name":"child","start_ns":2,"span_kind":"module","measured":false}\n' +
      op("s2", 11) +
      op("s2", 13) +
      '{"kind":"span_end","id":"s2","duration_ns":50}\n' +
      '{"kind":"span_end","id":"s1","duration_ns":100}\n';
    const document = await parseTrace({ text }, { mode: "lenient" });
    const streamed = await summarizeStream({ text }, { rankLimit: 10, mode: "lenient" });
    expect(streamed.rankings).toEqual(documentRankings(document, 10));
    expect(streamed.rankings?.heaviest_spans.find((span) => span.id === "s2")?.op_count).toBe(4);
  });

  it("restores timestamp order within the reorder window", async () => {
    const document = await parseTrace({ text: late });
    const streamed = await summarizeStream({ text: late }, { reorderWindow: 4 });
    expect(streamed.exact).toBe(true);
    expect(streamed.summary.peak_bytes).toBe(100);
    expect(streamed.health).toEqual(analyzeHealth(document));
  });

  it("reports when events were later than the window", async () => {
    const streamed = await summarizeStream({ text: late }, { reorderWindow: 1 });
    expect(streamed.exact).toBe(false);
    expect(streamed.notes[0]).toMatch(/out of timestamp order/);
  });

  it("resolves span references that appear before their span", async () => {
    const text =
      header +
      '{"kind":"op","span_id":"s2","op_name":"x","dtype":"f32","device":"cpu","duration_ns":1}\n' +
      '{"kind":"op","span_id":"s9","op_name":"x","dtype":"f32","device":"cpu","duration_ns":1}\n' +
      '{"kind":"span_start","id":"s2","parent_id":"s1","name":"c","start_ns":0,"span_kind":"op"}\n' +
      '{"kind":"span_end","id":"s2","duration_ns":1}\n{"kind":"span_end","id":"s1","duration_ns":100}\n';
    const streamed = await summarizeStream({ text });
    expect(streamed.health).toEqual(analyzeHealth(await parseTrace({ text })));
    expect(streamed.health.issues.filter((issue) => issue.code === "unknown_span")).toHaveLength(1);
  });
});

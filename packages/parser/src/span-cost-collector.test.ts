// The streamed span costs and memory timeline against the whole document, on every shared fixture
// the reader accepts.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { analyzeMemory, type MemoryTimelinePoint } from "@cg/memory";
import { fixturesDir } from "@cg/tooling-vitest";
import { describe, expect, it } from "vitest";
import {
  MemoryTimelineStream,
  parseTrace,
  SpanCostCollector,
  spanCostColumns,
  spanCosts,
  summarizeColumns,
  summarizeStream,
} from "./index.js";

const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: { file: string; expect: string }[];
};
const accepted = manifest.fixtures
  .filter((entry) => entry.expect !== "parse_error")
  .map((entry) => entry.file);

describe("streamed span costs and memory timeline", () => {
  it.each(accepted)("%s", async (file) => {
    const path = join(fixturesDir, file);
    const document = await parseTrace(path);
    for (const compat of ["union", "reference"] as const) {
      const collector = new SpanCostCollector();
      const points: MemoryTimelinePoint[] = [];
      const memory = new MemoryTimelineStream({ onPoint: (point) => points.push(point) });
      await summarizeStream(path, {
        compat,
        onEvent: (event) => {
          collector.push(event);
          if (event.kind === "memory") memory.push(event);
          else if (event.kind === "device_memory") memory.pushDeviceSample(event);
        },
      });
      const columns = collector.finish({ compat });
      const costs = spanCosts(document, { compat });
      expect(Array.from(columns.rowsInIdOrder(), (row) => columns.cost(row))).toEqual(costs);
      // The document's columns: rows in start order, the same costs in id order.
      const documentColumns = spanCostColumns(document, { compat });
      expect(Array.from(documentColumns.rowsInIdOrder(), (row) => documentColumns.cost(row))).toEqual(costs);
      // The summary's own costs, its ops read from the columns, at any batch size.
      for (const batchSize of [1, 3, 8192]) {
        const own = (await summarizeColumns(path, { compat, spanCosts: true, batchSize })).spanCosts;
        expect(own === undefined ? [] : Array.from(own.rowsInIdOrder(), (row) => own.cost(row))).toEqual(
          costs,
        );
      }
      const order = columns.rowsInIdOrder();
      for (const [index, span] of document.spans.entries()) {
        const row = order[index] as number;
        expect(columns.rowOf(span.id)).toBe(row);
        expect(columns.startNs(row)).toEqual(span.start_ns);
        expect(columns.closed(row)).toBe(span.closed);
        const parent = columns.parent(row);
        expect(parent < 0 ? undefined : columns.id(parent)).toBe(
          span.parent_id !== undefined && columns.rowOf(span.parent_id) >= 0 ? span.parent_id : undefined,
        );
      }
      const { memory: streamed, exact } = memory.finish();
      const { timeline, ...expected } = analyzeMemory({
        memory: document.memory,
        spans: document.spans,
        device_memory: document.device_memory,
      });
      expect(exact).toBe(true);
      expect(points).toEqual(timeline);
      const { timeline: none, ...actual } = streamed;
      expect(none).toEqual([]);
      // autograd_retained_bytes needs each span's step, which the caller gives (spanStep)
      expect({ ...actual, autograd_retained_bytes: 0 }).toEqual({ ...expected, autograd_retained_bytes: 0 });
    }
  });

  it("counts ops that come before their span starts", async () => {
    const meta =
      '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"infer","timestamp":"t","capture_step":1,"warmup_steps":0,"device":"cpu","timing_mode":"host","tags":{}}\n';
    const op =
      '{"kind":"op","span_id":"s1","op_name":"mm","shape":[2],"dtype":"f32","device":"cpu","duration_ns":7,"timestamp_ns":1,"input_storage_bytes":0}\n';
    const text = `${meta}${op}{"kind":"span_start","id":"s1","name":"a","start_ns":0,"span_kind":"function","measured":true}\n${op}`;
    const collector = new SpanCostCollector();
    await summarizeStream({ text }, { onEvent: (event) => collector.push(event) });
    const columns = collector.finish();
    expect(columns.opCount(0)).toBe(2);
    expect(columns.opNs(0)).toBe(14);
    expect(columns.opBytes(0)).toBe(16);
    expect(columns.totalNs(0)).toBe(14);
    expect(columns.rowOf("nope")).toBe(-1);

    // The summary's span costs follow the same rule, ops read from the columns one batch at a time.
    for (const batchSize of [1, 2, 8192]) {
      const own = (await summarizeColumns({ text }, { spanCosts: true, batchSize })).spanCosts;
      expect(own?.opCount(0)).toBe(2);
      expect(own?.opNs(0)).toBe(14);
      expect(own?.opBytes(0)).toBe(16);
      expect(own?.totalNs(0)).toBe(14);
    }
  });

  it("leaves span costs out of a summary that did not ask for them", async () => {
    const text =
      '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"infer","timestamp":"t","capture_step":1,"warmup_steps":0,"device":"cpu","timing_mode":"host","tags":{}}\n';
    expect((await summarizeColumns({ text }, { rankLimit: 2 })).spanCosts).toBeUndefined();
    expect((await summarizeColumns({ text }, { spanCosts: true })).spanCosts?.size).toBe(0);
  });
});

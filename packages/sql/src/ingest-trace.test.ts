import { SpanCostCollector } from "@cg/parser";
import type { SpanStartEvent } from "@cg/schema";
import { expect, test } from "vitest";
import { spanRow } from "./ingest-trace.js";
import { tableNamed } from "./tables.js";

test("a spans row names every column of the spans table", () => {
  // A column added to the layout (a new span_start field) must get its value here, not a NULL.
  const start: SpanStartEvent = {
    kind: "span_start",
    id: "child",
    parent_id: "never-started",
    name: "layer",
    start_ns: 5,
    span_kind: "module",
    measured: true,
    step: "forward",
  };
  const spans = new SpanCostCollector();
  spans.push(start);
  spans.push({ kind: "span_end", id: "child", duration_ns: 7 });
  const costs = spans.finish();
  const row = spanRow(costs, 0);
  const columns = tableNamed("spans").columns.map((column) => column.name);
  expect(["run_id", ...Object.keys(row)].sort()).toEqual([...columns].sort());
  const { kind: _kind, ...fields } = start;
  // Depth 1: below a parent that never started, as `spanCosts` counts it.
  expect(row).toEqual({
    ...fields,
    duration_ns: 7,
    closed: true,
    depth: 1,
    path: "layer",
    total_ns: 7,
    self_ns: 7,
  });
});

// Rows copied from a column batch against rows pushed from the same events as objects: the same
// chunk data, byte for byte, for every event table, with the awkward values (u64 above 2^53 in a
// field and in a shape, absent optional fields, storage bytes resolved from shape and dtype, a
// line the text tiers decode, lists of every length) and runs spanning several chunks.
import { resolveStorageBytes } from "@cg/memory";
import { readColumnBatches } from "@cg/parser";
import type { KindColumns, TraceEvent } from "@cg/schema";
import { describe, expect, it } from "vitest";
import type { ColumnData } from "./column-buffer.js";
import { TableRows } from "./table-rows.js";
import { TABLE_OF_KIND, type TableName, tableNamed } from "./tables.js";

const META =
  '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"train","timestamp":"2025-01-01T00:00:00.000Z","capture_step":1,"warmup_steps":0,"device":"cpu","timing_mode":"host","tags":{}}';

function lines(count: number): string[] {
  const out = [
    META,
    '{"kind":"span_start","id":"s1","name":"e","start_ns":0,"span_kind":"function","measured":true}',
  ];
  for (let n = 0; n < count; n++) {
    const big = n % 7 === 0 ? "18446744073709551615" : String(n * 4096);
    const inputs = Array.from({ length: n % 4 }, (_, index) => `"t${n - index - 1}"`).join(",");
    const storage = n % 3 === 0 ? "" : `,"storage_bytes":${big}`;
    const output = n % 5 === 0 ? "" : `,"output":"t${n}"`;
    pushAll(out, [
      `{"kind":"op","span_id":"s1","op_name":"${n % 2 === 0 ? "matmul" : "a-much-longer-op-name"}","inputs":[${inputs}]${output},"shape":[${n % 9},${big}],"dtype":"f32","device":"cpu","duration_ns":${n},"timestamp_ns":${n * 10}${storage},"input_storage_bytes":0}`,
      `{"kind":"tensor","span_id":"s1","tensor_id":"t${n}","shape":[2,${n}],"dtype":"bf16","device":"cpu","requires_grad":${n % 2 === 0}${storage},"category":"activation"}`,
      `{"kind":"memory","timestamp_ns":${n * 10},"tensor_id":"t${n}","span_id":"s1"${n % 4 === 0 ? "" : ',"op_name":"matmul"'},"device":"cpu","bytes":${big},"action":"alloc","shape":[${n}],"dtype":"f32","category":"activation"}`,
      // A line the canonical reader declines (an escape): the text tiers decode it.
      `{"kind":"gradient","event_id":"g${n}","root":"r\\u0041","key":"w${n}","state":"present"${n % 2 === 0 ? `,"norm":${n / 3}` : ""},"step":${big}}`,
      `{"kind":"device_memory","timestamp_ns":${n},"device":"cuda:0","used_bytes":${big},"free_bytes":${n},"capacity_bytes":${big}}`,
      `{"kind":"edge","from_span":"s1","to_span":"s${n}","duration_ns":${big}}`,
    ]);
  }
  out.push('{"kind":"span_end","id":"s1","duration_ns":5}');
  return out;
}

function pushAll(into: string[], items: string[]): void {
  for (const item of items) into.push(item);
}

/** Every chunk a table's rows made, as plain data. */
function collector(table: TableName): { rows: TableRows; chunks: { columns: ColumnData[]; rows: number }[] } {
  const chunks: { columns: ColumnData[]; rows: number }[] = [];
  const rows = new TableRows(tableNamed(table), (columns, count) => chunks.push({ columns, rows: count }), {
    detach: true,
  });
  rows.runId = "r";
  return { rows, chunks };
}

describe("TableRows.pushColumns", () => {
  it("makes the same chunks as pushing the events", async () => {
    const text = lines(1500).join("\n");
    const tables: TableName[] = ["ops", "tensors", "memory", "gradients", "device_memory", "edges"];
    const byEvents = new Map(tables.map((table) => [table, collector(table)]));
    const byColumns = new Map(tables.map((table) => [table, collector(table)]));
    let rows = 0;
    for await (const batch of readColumnBatches({ text }, { batchSize: 1000 })) {
      for (let at = 0; at < batch.size; at++) {
        const event = batch.event(at) as TraceEvent;
        if (event.kind === "meta" || event.kind === "span_start" || event.kind === "span_end") continue;
        const table = TABLE_OF_KIND[event.kind];
        if ((event.kind === "op" || event.kind === "tensor") && event.storage_bytes === undefined) {
          event.storage_bytes = resolveStorageBytes(undefined, event.shape, event.dtype);
        }
        byEvents.get(table)?.rows.push(event);
        byColumns
          .get(table)
          ?.rows.pushColumns(
            batch,
            batch.columns[batch.kinds[at] as number] as KindColumns,
            batch.rows[at] as number,
          );
        rows++;
      }
    }
    expect(rows).toBe(1500 * 6);
    for (const table of tables) {
      const events = byEvents.get(table);
      const columns = byColumns.get(table);
      events?.rows.emit();
      columns?.rows.emit();
      expect(columns?.chunks.length).toBeGreaterThan(0);
      // Strict: array buffers are compared by their bytes.
      expect(columns?.chunks).toStrictEqual(events?.chunks);
    }
  });
});

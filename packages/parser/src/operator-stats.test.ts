import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ColumnBatch, EVENT_KINDS, type TraceEvent } from "@cg/schema";
import { fixturesDir } from "@cg/tooling-vitest";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compareOperators,
  OPERATOR_GROUP_FIELDS,
  OperatorAccumulator,
  type OperatorGroupField,
  operatorTable,
  operatorTableOfEvents,
  parseTrace,
  parseTraceText,
  readColumnBatches,
  readTraceEvents,
  serializeDocument,
} from "./index.js";

const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: Array<{ file: string; expect: string }>;
};
const accepted = manifest.fixtures
  .filter((entry) => entry.expect !== "parse_error")
  .map((entry) => entry.file);

const meta = readFileSync(join(fixturesDir, "valid/golden-train.jsonl"), "utf8").split("\n")[0]!;

/** A trace with the given ops (durations in ns), all in span "forward" under the measured "step". */
function traceWith(ops: Array<{ name: string; duration: number; shape?: number[]; dtype?: string }>) {
  const total = ops.reduce((sum, op) => sum + op.duration, 0);
  const lines = [
    meta,
    JSON.stringify({
      kind: "span_start",
      id: "s1",
      name: "step",
      start_ns: 0,
      span_kind: "function",
      measured: true,
    }),
    JSON.stringify({
      kind: "span_start",
      id: "s2",
      parent_id: "s1",
      name: "forward",
      start_ns: 0,
      span_kind: "function",
      measured: false,
    }),
    ...ops.map((op, index) =>
      JSON.stringify({
        kind: "op",
        span_id: "s2",
        op_name: op.name,
        inputs: [],
        output: null,
        shape: op.shape ?? [4],
        dtype: op.dtype ?? "f32",
        device: "cpu",
        duration_ns: op.duration,
        timestamp_ns: index,
      }),
    ),
    JSON.stringify({ kind: "span_end", id: "s2", duration_ns: total }),
    JSON.stringify({ kind: "span_end", id: "s1", duration_ns: total * 2 }),
  ];
  return parseTraceText(`${lines.join("\n")}\n`);
}

describe("operatorTable", () => {
  it("gives calls, total, mean, min, max, exact percentiles, share and bytes per op name", async () => {
    const durations = [5, 1, 4, 2, 3, 100, 6, 7, 8, 9];
    const document = await traceWith([
      ...durations.map((duration) => ({ name: "matmul", duration, shape: [2, 3] })),
      { name: "relu", duration: 50, shape: [8], dtype: "f16" },
    ]);
    const table = operatorTable(document);
    expect(table.operators.map((row) => row.op_name)).toEqual(["matmul", "relu"]);
    const matmul = table.operators[0]!;
    expect(matmul).toMatchObject({
      calls: 10,
      total_ns: 145,
      mean_ns: 14, // 145 / 10, rounded down
      min_ns: 1,
      max_ns: 100,
      p50_ns: 5, // nearest rank: the 5th of 10 sorted values
      p95_ns: 100, // the 10th
      output_bytes: 10 * 2 * 3 * 4,
      shapes: ["[2, 3]"],
      dtypes: ["f32"],
    });
    expect(matmul.share_of_measured).toBeCloseTo(145 / Number(table.measured_total_ns), 12);
    expect(table.operators[1]).toMatchObject({ calls: 1, output_bytes: 16, dtypes: ["f16"] });
    expect(table.op_total_ns).toBe(195);
  });

  it("splits rows by shape, dtype, device or span path on request", async () => {
    const document = await traceWith([
      { name: "matmul", duration: 10, shape: [2, 3] },
      { name: "matmul", duration: 20, shape: [4, 4] },
      { name: "matmul", duration: 30, shape: [2, 3], dtype: "f16" },
    ]);
    expect(
      operatorTable(document, { groupBy: ["shape"] }).operators.map((row) => [row.shape, row.calls]),
    ).toEqual([
      ["[2, 3]", 2],
      ["[4, 4]", 1],
    ]);
    expect(operatorTable(document, { groupBy: ["shape", "dtype"] }).operators).toHaveLength(3);
    const byPath = operatorTable(document, { groupBy: ["path"] }).operators;
    expect(byPath.map((row) => row.path)).toEqual(["step/forward"]);
    expect(byPath[0]!.share_of_measured).toBeCloseTo(60 / 120, 12);
  });

  it("matches naive percentiles for any durations", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 1_000_000 }), { minLength: 1, maxLength: 60 }),
        async (durations) => {
          const document = await traceWith(durations.map((duration) => ({ name: "op", duration })));
          const [row] = operatorTable(document).operators;
          const sorted = [...durations].sort((left, right) => left - right);
          const rank = (fraction: number) => sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)];
          expect(row).toMatchObject({
            calls: durations.length,
            p50_ns: rank(0.5),
            p95_ns: rank(0.95),
            min_ns: sorted[0],
            max_ns: sorted[sorted.length - 1],
            total_ns: durations.reduce((sum, value) => sum + value, 0),
          });
        },
      ),
      { numRuns: 40 },
    );
  });

  it("keeps exact percentiles past one storage chunk (20,003 calls)", () => {
    const accumulator = new OperatorAccumulator();
    const durations = Array.from({ length: 20_003 }, (_, index) => (index * 7919) % 20_011);
    for (const duration of durations) {
      accumulator.addOp({
        op_name: "mm",
        span_id: "s",
        shape: [2],
        dtype: "f32",
        device: "cpu",
        duration_ns: duration,
        input_storage_bytes: 0,
      });
    }
    const sorted = [...durations].sort((left, right) => left - right);
    const rank = (fraction: number) => sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)];
    expect(accumulator.result().operators[0]).toMatchObject({
      calls: 20_003,
      p50_ns: rank(0.5),
      p95_ns: rank(0.95),
      min_ns: sorted[0],
      max_ns: sorted[sorted.length - 1],
    });
  });

  it("tables a document that repeats a span id as its stream: the first record of an id counts", async () => {
    const document = await traceWith([{ name: "matmul", duration: 10 }]);
    const measured = document.spans.find((span) => span.measured);
    expect(measured).toBeDefined();
    const repeated = { ...document, spans: [...document.spans, { ...measured!, duration_ns: 1_000 }] };
    expect(operatorTable(repeated)).toEqual(operatorTable(document));
  });

  it("keeps no durations for a stream of events when percentiles are off", async () => {
    const document = await traceWith([
      { name: "matmul", duration: 10 },
      { name: "matmul", duration: 30 },
    ]);
    const table = await operatorTableOfEvents(
      (async function* () {
        for await (const record of readTraceEvents({ text: serializeDocument(document) })) yield record.event;
      })(),
      { percentiles: false },
    );
    expect(table.percentiles).toBe("not kept");
    expect(table.operators[0]).toMatchObject({ calls: 2, p50_ns: 0, p95_ns: 0 });
    expect(table).toEqual(operatorTable(document, { percentiles: false }));
  });

  it.each(accepted)("streaming equals the document on %s, for every grouping", async (file) => {
    const path = join(fixturesDir, file);
    const document = await parseTrace(path);
    for (const groupBy of [[], ...OPERATOR_GROUP_FIELDS.map((field) => [field])]) {
      const streamed = await operatorTableOfEvents(
        (async function* () {
          for await (const record of readTraceEvents(path)) yield record.event;
        })(),
        { groupBy },
      );
      expect(streamed).toEqual(operatorTable(document, { groupBy }));
    }
  });
});

describe("compareOperators", () => {
  it("gives per-operator deltas and the operators that appeared or disappeared", async () => {
    const baseline = operatorTable(
      await traceWith([
        { name: "matmul", duration: 10 },
        { name: "matmul", duration: 10 },
        { name: "add", duration: 5 },
      ]),
    );
    const candidate = operatorTable(
      await traceWith([
        { name: "matmul", duration: 30 },
        { name: "fused_add_relu", duration: 4 },
      ]),
    );
    const comparison = compareOperators(baseline, candidate);
    expect(comparison.appeared).toEqual(["fused_add_relu"]);
    expect(comparison.disappeared).toEqual(["add"]);
    expect(comparison.deltas[0]).toMatchObject({
      op_name: "matmul",
      status: "both",
      calls_delta: -1,
      total_delta_ns: 10,
      total_delta_percent: 50,
      baseline_mean_ns: 10,
      candidate_mean_ns: 30,
      mean_delta_ns: 20,
    });
    expect(comparison.deltas.map((delta) => delta.op_name)).toEqual(["matmul", "add", "fused_add_relu"]);
  });
});

describe("operatorTable beyond 2^53", () => {
  it("keeps u64 durations exact", async () => {
    const huge = 2n ** 64n - 1n;
    const lines = readFileSync(join(fixturesDir, "valid/golden-train.jsonl"), "utf8").split("\n")[0]!;
    const text = [
      lines,
      '{"kind":"span_start","id":"s1","name":"step","start_ns":0,"span_kind":"function","measured":true}',
      `{"kind":"op","span_id":"s1","op_name":"slow","inputs":[],"output":null,"shape":[1],"dtype":"f32","device":"cpu","duration_ns":${huge},"timestamp_ns":0}`,
      '{"kind":"op","span_id":"s1","op_name":"slow","inputs":[],"output":null,"shape":[1],"dtype":"f32","device":"cpu","duration_ns":1,"timestamp_ns":1}',
      '{"kind":"span_end","id":"s1","duration_ns":5}',
      "",
    ].join("\n");
    const [row] = operatorTable(await parseTraceText(text)).operators;
    expect(row).toMatchObject({
      calls: 2,
      total_ns: huge + 1n,
      max_ns: huge,
      min_ns: 1,
      p95_ns: huge,
      mean_ns: (huge + 1n) / 2n,
    });
  });
});

/** The operator table computed the obvious way (a key string and a list of durations per row). */
function naiveTable(
  ops: Parameters<OperatorAccumulator["addOp"]>[0][],
  groupBy: OperatorGroupField[],
  limit?: number,
) {
  const rows = new Map<
    string,
    {
      fields: { op_name: string } & Record<string, string>;
      durations: bigint[];
      shapes: string[];
      dtypes: string[];
      devices: string[];
      more: number;
      output: bigint;
      input: bigint;
    }
  >();
  const shapeOf = (shape: readonly (number | bigint)[]) => `[${shape.join(", ")}]`;
  for (const op of ops) {
    const values: Record<string, string> = {
      shape: shapeOf(op.shape),
      dtype: op.dtype,
      device: op.device,
      path: op.span_id,
    };
    const fields: { op_name: string } & Record<string, string> = { op_name: op.op_name };
    for (const field of groupBy) fields[field] = values[field] as string;
    const key = JSON.stringify(fields);
    const row = rows.get(key) ?? {
      fields,
      durations: [],
      shapes: [],
      dtypes: [],
      devices: [],
      more: 0,
      output: 0n,
      input: 0n,
    };
    rows.set(key, row);
    row.durations.push(BigInt(op.duration_ns));
    const keep = (list: string[], value: string) =>
      list.includes(value) || (list.length < 8 && list.push(value) > 0);
    if (!keep(row.shapes, values.shape as string)) row.more++;
    keep(row.dtypes, op.dtype);
    keep(row.devices, op.device);
    row.output += BigInt(op.storage_bytes ?? 0);
    row.input += BigInt(op.input_storage_bytes ?? 0);
  }
  const u64 = (value: bigint) => (value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value);
  const result = [...rows.values()].map((row) => {
    const sorted = [...row.durations].sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
    const total = sorted.reduce((sum, value) => sum + value, 0n);
    const rank = (fraction: number) =>
      u64(sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)] as bigint);
    return {
      ...row.fields,
      calls: sorted.length,
      total_ns: u64(total),
      mean_ns: u64(total / BigInt(sorted.length)),
      min_ns: u64(sorted[0] as bigint),
      max_ns: u64(sorted[sorted.length - 1] as bigint),
      p50_ns: rank(0.5),
      p95_ns: rank(0.95),
      output_bytes: u64(row.output),
      input_bytes: u64(row.input),
      shapes: groupBy.includes("shape") ? [row.fields.shape] : row.shapes,
      dtypes: groupBy.includes("dtype") ? [row.fields.dtype] : row.dtypes,
      devices: groupBy.includes("device") ? [row.fields.device] : row.devices,
      shapes_more: groupBy.includes("shape") ? 0 : row.more,
    };
  });
  // Stable: ties keep first-seen order.
  result.sort((left, right) => {
    const a = BigInt(left.total_ns);
    const b = BigInt(right.total_ns);
    return a > b ? -1 : a < b ? 1 : left.op_name < right.op_name ? -1 : left.op_name > right.op_name ? 1 : 0;
  });
  return limit === undefined ? result : result.slice(0, limit);
}

describe("OperatorAccumulator rows", () => {
  it("equal a naive table for any ops, grouping and limit (u64 values, many shapes, many rows)", () => {
    const duration = fc.oneof(
      fc.integer({ min: 0, max: 50 }),
      fc.constantFrom(Number.MAX_SAFE_INTEGER, 2n ** 53n + 7n, 2n ** 64n - 1n),
    );
    const op = fc.record({
      op_name: fc.constantFrom("mm", "add", "relu", "b"),
      span_id: fc.constantFrom("s1", "s2", "s1/x", "é"),
      shape: fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 2 }),
      dtype: fc.constantFrom("f32", "f16"),
      device: fc.constantFrom("cpu", "cuda:0", "cuda:1"),
      duration_ns: duration,
      storage_bytes: fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.constant(2n ** 60n)),
      input_storage_bytes: fc.integer({ min: 0, max: 1000 }),
    });
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 300, size: "large" }),
        fc.subarray([...OPERATOR_GROUP_FIELDS]),
        fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }),
        fc.boolean(),
        (ops, groupBy, limit, percentiles) => {
          const accumulator = new OperatorAccumulator(groupBy, { percentiles, pathOf: (spanId) => spanId });
          for (const each of ops) accumulator.addOp(each);
          const table = accumulator.result(limit === undefined ? {} : { limit });
          const expected = naiveTable(ops, groupBy, limit).map((row) =>
            percentiles ? row : { ...row, p50_ns: 0, p95_ns: 0 },
          );
          expect(table.operators.map(({ share_of_measured: _share, ...row }) => row)).toEqual(expected);
          expect(table.op_count).toBe(ops.length);
          expect(table.operator_count).toBe(naiveTable(ops, groupBy).length);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("OperatorAccumulator.addOpRow", () => {
  const dimension = fc.oneof(fc.integer({ min: 0, max: 12 }), fc.constant(2n ** 60n + 1n));
  const op = fc.record(
    {
      kind: fc.constant("op" as const),
      span_id: fc.constantFrom("s1", "s2", "é"),
      op_name: fc.constantFrom("mm", "add", "relu"),
      inputs: fc.constant<string[]>([]),
      shape: fc.array(dimension, { maxLength: 3 }),
      dtype: fc.constantFrom("f32", "f16", "bf17"),
      device: fc.constantFrom("cpu", "cuda:0"),
      duration_ns: fc.oneof(fc.integer({ min: 0, max: 50 }), fc.constant(2n ** 64n - 1n)),
      timestamp_ns: fc.constant(0),
      storage_bytes: fc.integer({ min: 0, max: 1000 }),
      input_storage_bytes: fc.integer({ min: 0, max: 1000 }),
    },
    // Absent storage bytes are derived from shape and dtype.
    {
      requiredKeys: [
        "kind",
        "span_id",
        "op_name",
        "inputs",
        "shape",
        "dtype",
        "device",
        "duration_ns",
        "timestamp_ns",
        "input_storage_bytes",
      ],
    },
  );

  it("equals addOp of the same ops, read from a batch's columns", () => {
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 100 }),
        fc.subarray([...OPERATOR_GROUP_FIELDS]),
        fc.integer({ min: 1, max: 40 }),
        (ops, groupBy, batchSize) => {
          const byEvents = new OperatorAccumulator(groupBy);
          const byRows = new OperatorAccumulator(groupBy);
          for (const each of ops) byEvents.addOp(each);
          // Batches reused as the reader reuses them: a shape text kept across batches must not leak.
          const batch = new ColumnBatch();
          for (let from = 0; from < ops.length; from += batchSize) {
            batch.clear();
            ops.slice(from, from + batchSize).forEach((each, at) => {
              batch.appendEvent(each, from + at + 1, from + at);
            });
            for (let at = 0; at < batch.size; at++) byRows.addOpRow(batch, batch.rows[at] as number);
          }
          expect(byRows.result()).toEqual(byEvents.result());
        },
      ),
      { numRuns: 200 },
    );
  });

  it.each(accepted)("gives operatorTableOfEvents' table for %s, grouped any way", async (file) => {
    const events: TraceEvent[] = [];
    for await (const record of readTraceEvents(join(fixturesDir, file))) events.push(record.event);
    for (const groupBy of [[], ["shape"], ["dtype", "device"], ["path"]] as OperatorGroupField[][]) {
      const byRows = new OperatorAccumulator(groupBy);
      const measured = new Set<string>();
      for await (const batch of readColumnBatches(join(fixturesDir, file), { batchSize: 3 })) {
        for (let at = 0; at < batch.size; at++) {
          if (batch.kinds[at] === EVENT_KINDS.indexOf("op")) byRows.addOpRow(batch, batch.rows[at] as number);
          else byRows.addEvent(batch.event(at), measured);
        }
      }
      expect(byRows.result()).toEqual(await operatorTableOfEvents(events, { groupBy }));
    }
  });
});

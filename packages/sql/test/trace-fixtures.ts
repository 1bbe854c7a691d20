// Traces the tests read: the shared fixtures, a writer-made trace with the awkward values (a
// saturated u64, a non-ASCII tag, absent optional fields), and what each table must hold for a
// parsed document, computed from the parser's document independently of the ingest code.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { analyzeHealth, parseTrace, spanCosts, summarize, type TraceDocument } from "@cg/parser";
import { U64_MAX } from "@cg/schema";
import { fixturesDir } from "@cg/tooling-vitest";
import { ProfileRun, TraceSession } from "@cg/writer";
import { type Column, TABLES, type TableName } from "../src/index.js";

interface ManifestEntry {
  file: string;
  expect: string;
}

const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: ManifestEntry[];
};

/** Every shared fixture the reader accepts (valid and untrusted ones). */
export const readableFixtures = manifest.fixtures
  .filter((entry) => entry.expect !== "parse_error")
  .map((entry) => join(fixturesDir, entry.file));

/** Shared fixtures the reader rejects. */
export const brokenFixtures = manifest.fixtures
  .filter((entry) => entry.expect === "parse_error")
  .map((entry) => join(fixturesDir, entry.file));

export const SATURATED = U64_MAX;
export const NON_ASCII_TAG = "modèle ✓ 日本";

/** Writes a trace with the writer: saturated u64 values, a non-ASCII tag, an op without `output`. */
export function writeWriterTrace(
  path: string,
  runId = "writer-run-1",
  correlation = "writer/update-3",
): string {
  const run = ProfileRun.training("writer::step", 3, "cuda:0")
    .tag("model", NON_ASCII_TAG)
    .tag("rank", "0")
    .tag("correlation", correlation);
  const session = TraceSession.open(path, run, { runId });
  {
    using measured = session.beginMeasurement("writer/update-3");
    {
      using forward = session.beginStepSpan("forward", "forward", "function");
      session.recordOp(forward, {
        opName: "matmul",
        inputs: ["a", "b"],
        output: "c",
        shape: [32, 64],
        dtype: "f32",
        device: "cuda:0",
        durationNs: 1200,
        timestampNs: 10,
      });
      // A saturated duration and storage size, and no `output` (an absent optional field).
      session.recordOp(forward, {
        opName: "huge",
        shape: [SATURATED],
        dtype: "u8",
        device: "cuda:0",
        durationNs: SATURATED,
        timestampNs: 20,
        storageBytes: SATURATED,
      });
      session.recordTensor(forward, { tensorId: "t1", shape: [32, 64], dtype: "f32", device: "cuda:0" });
      session.recordMemoryAlloc(forward, {
        tensorId: "t1",
        bytes: 8192,
        shape: [32, 64],
        dtype: "f32",
        device: "cuda:0",
        category: "activation",
        timestampNs: 30,
      });
    }
    session.recordDeviceMemory("cuda:0", 1024, 2048, 40);
    session.recordGradient("model", "dense.weight", "present", 0.5);
    session.recordGradient("model", "dense.bias", "missing");
    void measured;
  }
  session.finish();
  return path;
}

/** A row as the tables hold it, with JS values as DuckDB returns them (u64 as bigint). */
export type Row = Record<string, unknown>;

function toSql(value: unknown, column: Column): unknown {
  if (value === undefined || value === null) return null;
  switch (column.type) {
    case "UBIGINT":
      return BigInt(value as number | bigint);
    case "UBIGINT[]":
      return (value as (number | bigint)[]).map((item) => BigInt(item));
    case "UINTEGER":
      return Number(value);
    case "MAP(VARCHAR, VARCHAR)":
      return Object.entries(value as Record<string, string>).map(([key, entry]) => ({ key, value: entry }));
    default:
      return value;
  }
}

function rowOf(table: TableName, fields: Record<string, unknown>): Row {
  const columns = TABLES.find((candidate) => candidate.name === table)?.columns ?? [];
  const row: Row = {};
  for (const column of columns) row[column.name] = toSql(fields[column.name], column);
  return row;
}

/** What each table must hold for one parsed document, in file order (spans in id order). */
export function expectedRows(document: TraceDocument, file: string): Record<TableName, Row[]> {
  const runId = document.run.run_id;
  const health = analyzeHealth(document);
  const summary = summarize(document);
  const costs = new Map(spanCosts(document).map((cost) => [cost.id, cost]));
  const memory = summary;
  const events = <T extends object>(table: TableName, list: readonly T[]) =>
    list.map((event) => rowOf(table, { ...event, run_id: runId }));
  return {
    runs: [
      rowOf("runs", {
        ...document.run,
        schema: document.schema,
        file,
        trusted: health.trusted,
        error_codes: health.issues.filter((issue) => issue.severity === "error").map((issue) => issue.code),
        warning_codes: health.issues
          .filter((issue) => issue.severity === "warning")
          .map((issue) => issue.code),
        measured_ns: summary.total_ns,
        op_count: summary.op_count,
        span_count: summary.span_count,
        root_span_count: summary.root_span_count,
        max_depth: summary.max_depth,
        alloc_count: summary.alloc_count,
        free_count: summary.free_count,
        peak_bytes: memory.peak_bytes,
      }),
    ],
    spans: document.spans.map((span) => {
      const cost = costs.get(span.id);
      return rowOf("spans", {
        ...span,
        run_id: runId,
        span_kind: span.kind,
        depth: cost?.depth,
        path: cost?.path,
        total_ns: cost?.total_ns,
        self_ns: cost?.self_ns,
      });
    }),
    ops: events("ops", document.ops),
    tensors: events("tensors", document.tensors),
    memory: events("memory", document.memory),
    device_memory: events("device_memory", document.device_memory),
    gradients: events("gradients", document.gradients),
    edges: events("edges", document.edges),
  };
}

export async function parseFile(path: string): Promise<TraceDocument> {
  return parseTrace(path);
}

/** Layers of ops and alloc/free pairs, thousands of rows per table (several data chunks). */
export function manyChunksTrace(layers: number, runId = "many"): string {
  const lines = [
    `{"kind":"meta","schema":"candle-graph/trace/6","run_id":"${runId}","correlation_id":"c","entrypoint":"e","phase":"train","timestamp":"t","capture_step":1,"warmup_steps":0,"device":"cuda:0","timing_mode":"host","tags":{"k":"v"}}`,
    '{"kind":"span_start","id":"root","name":"train","start_ns":0,"span_kind":"function","measured":true}',
  ];
  let clock = 1;
  for (let layer = 0; layer < layers; layer++) {
    const step = ["forward", "backward", "optimizer"][layer % 3];
    lines.push(
      `{"kind":"span_start","id":"l${layer}","parent_id":"root","name":"layer-${layer % 7}","start_ns":${clock},"span_kind":"module","measured":false,"step":"${step}"}`,
    );
    for (let op = 0; op < 2; op++) {
      clock += 10;
      lines.push(
        `{"kind":"op","span_id":"l${layer}","op_name":"matmul","inputs":["t${layer}a","t${layer}b"],"output":"t${layer}-${op}","shape":[64,${layer + 1}],"dtype":"f32","device":"cuda:0","duration_ns":${5 + (layer % 11)},"timestamp_ns":${clock}}`,
        `{"kind":"memory","timestamp_ns":${clock},"tensor_id":"t${layer}-${op}","span_id":"l${layer}","device":"cuda:0","bytes":${256 * (layer + 1)},"action":"alloc","dtype":"f32"}`,
      );
    }
    clock += 5;
    lines.push(
      `{"kind":"memory","timestamp_ns":${clock},"tensor_id":"t${layer}-0","span_id":"l${layer}","device":"cuda:0","bytes":${256 * (layer + 1)},"action":"free","dtype":"f32"}`,
      `{"kind":"span_end","id":"l${layer}","duration_ns":${clock - 10 * layer}}`,
    );
  }
  lines.push(`{"kind":"span_end","id":"root","duration_ns":${clock + 1}}`);
  return `${lines.join("\n")}\n`;
}

// One trace into the tables: events stream from the parser's validating reader into the table
// writers; spans are held (one compact record each) until the end, where the span tree gives depth,
// path and times; the run row comes from the parser's streaming summary and health.
import { readFile, stat } from "node:fs/promises";
import { resolveStorageBytes } from "@cg/memory";
import {
  readTraceEvents,
  type SpanCost,
  type SpanRecord,
  type StreamSummary,
  spanCosts,
  spanRecordFromStart,
  summarizeStream,
  type TraceDocument,
  TraceParseError,
} from "@cg/parser";
import { type TraceEvent, type U64, u64ToBigInt } from "@cg/schema";
import type { DuckDBConnection } from "@duckdb/node-api";
import type { Column } from "./event-columns.js";
import { type CellValue, deleteRunSql, type TableWriter } from "./table-writer.js";
import type { TableName } from "./tables.js";

/** A trace read into the tables. */
export interface IngestedRun {
  file: string;
  run_id: string;
  trusted: boolean;
  events: number;
}

/** A trace left out, with the reader's error (file, line, message). */
export interface RejectedTrace {
  file: string;
  /** 1-based line of the defect, when a line causes it. */
  line?: number;
  code: string;
  message: string;
}

export type Writers = Record<TableName, TableWriter>;

/** Files up to this size are read once into memory and parsed from there by both passes. */
const SMALL_FILE_BYTES = 8 * 1024 * 1024;

async function smallFileBytes(file: string): Promise<string | Uint8Array> {
  const info = await stat(file);
  return info.size <= SMALL_FILE_BYTES ? await readFile(file) : file;
}

type EventTable = Exclude<TableName, "runs" | "spans">;

const TABLE_OF_KIND: Record<string, EventTable> = {
  op: "ops",
  tensor: "tensors",
  memory: "memory",
  device_memory: "device_memory",
  gradient: "gradients",
  edge: "edges",
};

/** Wire keys of a table's columns after `run_id`; `undefined` for derived columns. */
function keysOf(columns: readonly Column[]): (string | undefined)[] {
  return columns.slice(1).map((column) => column.key);
}

function cell(value: unknown): CellValue {
  if (value === undefined) return null;
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    // A string map (meta tags) becomes MAP entries.
    return Object.entries(value as Record<string, string>).map(([key, entry]) => ({ key, value: entry }));
  }
  return value as CellValue;
}

function eventRow(event: Record<string, unknown>, keys: readonly (string | undefined)[]): CellValue[] {
  const row = new Array<CellValue>(keys.length);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index];
    row[index] = key === undefined ? null : cell(event[key]);
  }
  return row;
}

/** Per-span totals of its own ops: all the span tree needs from the ops. */
interface OpTotals {
  ns: bigint;
  bytes: bigint;
}

function spanDocument(spans: Map<string, SpanRecord>, opTotals: Map<string, OpTotals>): TraceDocument {
  // spanCosts reads spans and, for zero-duration spans, their ops' durations: one summed op per
  // span carries the same totals without holding every op.
  const ops: TraceDocument["ops"] = [];
  for (const [spanId, totals] of opTotals) {
    ops.push({
      kind: "op",
      span_id: spanId,
      op_name: "",
      inputs: [],
      shape: [],
      dtype: "",
      device: "",
      duration_ns: totals.ns as U64,
      timestamp_ns: 0,
      storage_bytes: totals.bytes as U64,
      input_storage_bytes: 0,
    });
  }
  const sorted = [...spans.values()].sort((left, right) =>
    left.id < right.id ? -1 : left.id > right.id ? 1 : 0,
  );
  return {
    schema: "",
    run: undefined as unknown as TraceDocument["run"],
    spans: sorted,
    ops,
    tensors: [],
    memory: [],
    device_memory: [],
    gradients: [],
    edges: [],
  };
}

/** Values of the columns a table adds beyond the wire fields, by column name. */
type DerivedValues<T> = Record<string, (from: T) => CellValue>;

const RUN_VALUES: DerivedValues<{ file: string; summary: StreamSummary }> = {
  file: ({ file }) => file,
  trusted: ({ summary }) => summary.health.trusted,
  error_codes: ({ summary }) => issueCodes(summary, "error"),
  warning_codes: ({ summary }) => issueCodes(summary, "warning"),
  events: ({ summary }) => summary.events,
  measured_ns: ({ summary }) => summary.summary.total_ns,
  op_count: ({ summary }) => summary.summary.op_count,
  span_count: ({ summary }) => summary.summary.span_count,
  root_span_count: ({ summary }) => summary.summary.root_span_count,
  max_depth: ({ summary }) => summary.summary.max_depth,
  alloc_count: ({ summary }) => summary.summary.alloc_count,
  free_count: ({ summary }) => summary.summary.free_count,
  peak_bytes: ({ summary }) => summary.memory.peak_bytes,
  peak_device: ({ summary }) => (summary.memory.peak_device === "" ? null : summary.memory.peak_device),
};

const SPAN_VALUES: DerivedValues<{ span: SpanRecord; cost: SpanCost }> = {
  duration_ns: ({ span }) => span.duration_ns,
  closed: ({ span }) => span.closed,
  depth: ({ cost }) => cost.depth,
  path: ({ cost }) => cost.path,
  total_ns: ({ cost }) => cost.total_ns,
  self_ns: ({ cost }) => cost.self_ns,
};

function issueCodes(summary: StreamSummary, severity: "error" | "warning"): string[] {
  return summary.health.issues.filter((issue) => issue.severity === severity).map((issue) => issue.code);
}

function derivedValue<T>(values: DerivedValues<T>, column: string | undefined, from: T): CellValue {
  const value = column === undefined ? undefined : values[column];
  if (value === undefined) throw new Error(`@cg/sql has no value for the derived column ${column}`);
  return value(from);
}

export class TraceIngest {
  readonly #connection: DuckDBConnection;
  readonly #writers: Writers;
  readonly #keys: Record<TableName, (string | undefined)[]>;
  readonly #runs = new Map<string, string>();

  constructor(connection: DuckDBConnection, writers: Writers) {
    this.#connection = connection;
    this.#writers = writers;
    this.#keys = Object.fromEntries(
      Object.entries(writers).map(([name, writer]) => [name, keysOf(writer.table.columns)]),
    ) as Record<TableName, (string | undefined)[]>;
  }

  /** Run ids already in the tables, with their file. */
  get runs(): ReadonlyMap<string, string> {
    return this.#runs;
  }

  /** Reads one trace into the tables; a rejected trace leaves no row behind. */
  async ingest(file: string): Promise<IngestedRun | RejectedTrace> {
    let runId: string | undefined;
    let duplicateOf: string | undefined;
    let events = 0;
    const spans = new Map<string, SpanRecord>();
    const spanSteps = new Map<string, Extract<TraceEvent, { kind: "span_start" }>>();
    const opTotals = new Map<string, OpTotals>();
    const writers = this.#writers;
    const keys = this.#keys;
    try {
      const source = await smallFileBytes(file);
      for await (const { event } of readTraceEvents(source, { file })) {
        events++;
        // The reader rejects a trace whose first event is not its meta, after delivering the events
        // before the defect; they have no run to belong to.
        if (runId === undefined && event.kind !== "meta") continue;
        switch (event.kind) {
          case "meta": {
            runId = event.run_id;
            duplicateOf = this.#runs.get(runId);
            if (duplicateOf !== undefined) break;
            this.#runs.set(runId, file);
            for (const writer of Object.values(writers)) writer.runId = runId;
            continue;
          }
          case "span_start":
            spanSteps.set(event.id, event);
            spans.set(event.id, spanRecordFromStart(event));
            continue;
          case "span_end": {
            const span = spans.get(event.id);
            if (span !== undefined) {
              span.closed = true;
              span.duration_ns = event.duration_ns;
            }
            continue;
          }
          case "op": {
            if (event.storage_bytes === undefined) {
              event.storage_bytes = resolveStorageBytes(undefined, event.shape, event.dtype);
            }
            let totals = opTotals.get(event.span_id);
            if (totals === undefined) {
              totals = { ns: 0n, bytes: 0n };
              opTotals.set(event.span_id, totals);
            }
            totals.ns += u64ToBigInt(event.duration_ns);
            totals.bytes += u64ToBigInt(event.storage_bytes);
            writers.ops.push(eventRow(event, keys.ops));
            continue;
          }
          case "tensor":
            if (event.storage_bytes === undefined) {
              event.storage_bytes = resolveStorageBytes(undefined, event.shape, event.dtype);
            }
            writers.tensors.push(eventRow(event, keys.tensors));
            continue;
          default: {
            const table = TABLE_OF_KIND[event.kind] as EventTable;
            writers[table].push(eventRow(event as unknown as Record<string, unknown>, keys[table]));
            continue;
          }
        }
        // Only a duplicate run id leaves the switch.
        break;
      }
      if (duplicateOf !== undefined) {
        return {
          file,
          code: "duplicate_run",
          message: `${file}: run ${runId} was already read from ${duplicateOf}`,
        };
      }
      if (runId === undefined) throw new Error(`${file}: the reader returned no meta event`);
      this.#pushSpans(spans, spanSteps, opTotals);
      // The span records are in the table now; the summary pass below needs none of them.
      spans.clear();
      spanSteps.clear();
      opTotals.clear();
      const summary = await summarizeStream(source, { file });
      const meta: Record<string, unknown> = { ...summary.run, schema: summary.schema };
      const runColumns = writers.runs.table.columns.slice(1);
      writers.runs.push(
        keys.runs.map((key, index) =>
          key === undefined
            ? derivedValue(RUN_VALUES, runColumns[index]?.name, { file, summary })
            : cell(meta[key]),
        ),
      );
      return { file, run_id: runId, trusted: summary.health.trusted, events };
    } catch (error) {
      await this.#rollback(runId, duplicateOf);
      if (TraceParseError.isInstance(error)) {
        const rejected: RejectedTrace = { file, code: error.code, message: error.message };
        if (error.line !== undefined) rejected.line = error.line;
        return rejected;
      }
      throw error;
    }
  }

  #pushSpans(
    spans: Map<string, SpanRecord>,
    starts: Map<string, Extract<TraceEvent, { kind: "span_start" }>>,
    opTotals: Map<string, OpTotals>,
  ): void {
    const writer = this.#writers.spans;
    const keys = this.#keys.spans;
    const columns = writer.table.columns.slice(1);
    for (const cost of spanCosts(spanDocument(spans, opTotals))) {
      const start = starts.get(cost.id) as Extract<TraceEvent, { kind: "span_start" }>;
      const span = spans.get(cost.id) as SpanRecord;
      const row = keys.map((key, index) =>
        key === undefined
          ? derivedValue(SPAN_VALUES, columns[index]?.name, { span, cost })
          : cell((start as unknown as Record<string, unknown>)[key]),
      );
      writer.push(row);
    }
  }

  async #rollback(runId: string | undefined, duplicateOf: string | undefined): Promise<void> {
    if (runId === undefined || duplicateOf !== undefined) return;
    for (const writer of Object.values(this.#writers)) writer.discardRun();
    for (const writer of Object.values(this.#writers)) {
      writer.flush();
      await this.#connection.run(deleteRunSql(writer.table), [runId]);
    }
    this.#runs.delete(runId);
  }
}

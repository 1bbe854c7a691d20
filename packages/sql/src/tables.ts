// The dataset's tables (layout `cg-dataset/1`): one per event kind plus `runs`. Event columns come
// from @cg/schema's wire layout table; only the columns a table adds beyond the wire fields are
// listed here.
import { EVENT_LAYOUTS, type EventKind } from "@cg/schema/core";
import { type Column, columnsOfEvent } from "./event-columns.js";

/** Version of the dataset layout, recorded in every exported dataset. */
export const DATASET_LAYOUT = "cg-dataset/2";

/** The first layout (Hive folders named by the values), still read. */
export const DATASET_LAYOUT_V1 = "cg-dataset/1";

export type TableName =
  | "runs"
  | "spans"
  | "ops"
  | "tensors"
  | "memory"
  | "device_memory"
  | "gradients"
  | "edges";

export interface Table {
  name: TableName;
  /** The event kind whose lines are the table's rows (`meta` for runs, `span_start` for spans). */
  kind: Exclude<EventKind, "span_end">;
  /** Every column, `run_id` first. */
  columns: Column[];
}

const RUN_ID: Column = {
  name: "run_id",
  type: "VARCHAR",
  nullable: false,
  source: "wire `run_id` of the meta line",
};

function derived(name: string, type: Column["type"], source: string, nullable = false): Column {
  return { name, type, nullable, source };
}

/** `storage_bytes` is resolved by the reader (spec §15.4), so it is never NULL in the tables. */
function resolvedStorageBytes(columns: Column[]): Column[] {
  return columns.map((column) =>
    column.name === "storage_bytes"
      ? {
          ...column,
          nullable: false,
          source: "wire `storage_bytes`, or resolved from shape and dtype (spec §15.4)",
          resolvedFromShape: true,
        }
      : column,
  );
}

function eventTable(name: TableName, kind: Table["kind"], columns: Column[]): Table {
  return { name, kind, columns: [RUN_ID, ...columns] };
}

const metaColumns = columnsOfEvent(EVENT_LAYOUTS.meta).filter((column) => column.name !== "run_id");
const spanEndDuration = columnsOfEvent(EVENT_LAYOUTS.span_end).filter(
  (column) => column.name === "duration_ns",
);

export const TABLES: readonly Table[] = [
  eventTable("runs", "meta", [
    ...metaColumns,
    derived("file", "VARCHAR", "path of the trace file"),
    derived("trusted", "BOOLEAN", "health verdict: no issue of severity error (spec §12)"),
    derived("error_codes", "VARCHAR[]", "codes of the health errors"),
    derived("warning_codes", "VARCHAR[]", "codes of the health warnings"),
    derived("events", "UBIGINT", "events read"),
    derived("measured_ns", "UBIGINT", "summary: sum of the measured spans' durations (spec §10)"),
    derived("op_count", "UBIGINT", "summary: op events"),
    derived("span_count", "UBIGINT", "summary: spans"),
    derived("root_span_count", "UBIGINT", "summary: spans without a parent"),
    derived("max_depth", "UINTEGER", "summary: deepest span"),
    derived("alloc_count", "UBIGINT", "summary: memory alloc events"),
    derived("free_count", "UBIGINT", "summary: memory free events"),
    derived("peak_bytes", "UBIGINT", "memory analysis: largest live total of one device"),
    derived("peak_device", "VARCHAR", "memory analysis: device of the peak; NULL when none", true),
  ]),
  eventTable("spans", "span_start", [
    ...columnsOfEvent(EVENT_LAYOUTS.span_start),
    // Read from the span_end, so derived here rather than a field of the span_start row.
    ...spanEndDuration.map(({ key: _key, ...column }) => ({
      ...column,
      source: "wire `duration_ns` of the span_end; 0 when not closed",
    })),
    derived("closed", "BOOLEAN", "a span_end was seen"),
    derived("depth", "UINTEGER", "0 for a root span"),
    derived("path", "VARCHAR", "names from the root down, joined with /"),
    derived("total_ns", "UBIGINT", "duration, or for a zero duration its ops and children (spec §16)"),
    derived("self_ns", "UBIGINT", "total minus the union of the children's intervals"),
  ]),
  eventTable("ops", "op", resolvedStorageBytes(columnsOfEvent(EVENT_LAYOUTS.op))),
  eventTable("tensors", "tensor", resolvedStorageBytes(columnsOfEvent(EVENT_LAYOUTS.tensor))),
  eventTable("memory", "memory", columnsOfEvent(EVENT_LAYOUTS.memory)),
  eventTable("device_memory", "device_memory", columnsOfEvent(EVENT_LAYOUTS.device_memory)),
  eventTable("gradients", "gradient", columnsOfEvent(EVENT_LAYOUTS.gradient)),
  eventTable("edges", "edge", columnsOfEvent(EVENT_LAYOUTS.edge)),
];

/** The table of each event kind's rows (span_end's duration is a column of `spans`). */
export const TABLE_OF_KIND = Object.fromEntries(TABLES.map((table) => [table.kind, table.name])) as Record<
  Table["kind"],
  TableName
>;

export function tableNamed(name: TableName): Table {
  const table = TABLES.find((candidate) => candidate.name === name);
  if (table === undefined) throw new Error(`no table ${name}`);
  return table;
}

/** Quotes an SQL identifier. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Quotes an SQL string literal. */
export function quoteLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

export function createTableSql(table: Table): string {
  const columns = table.columns.map(
    (column) => `${quoteIdentifier(column.name)} ${column.type}${column.nullable ? "" : " NOT NULL"}`,
  );
  return `CREATE TABLE IF NOT EXISTS ${quoteIdentifier(table.name)} (${columns.join(", ")})`;
}

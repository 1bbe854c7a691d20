// Rows of one table gathered column by column into typed buffers, a data chunk (2,048 rows,
// DuckDB's vector size) at a time: each full chunk is handed to a sink as plain column data, which
// writes it into DuckDB on this thread (table-writer.ts) or posts it to the thread that does
// (ingest-worker.ts). No JS object is made per row or cell, and nothing here touches DuckDB.
import { resolveStorageBytes } from "@cg/memory";
import {
  ABSENT_ENUM,
  ABSENT_ID,
  type ColumnBatch,
  EXACT_U64,
  type FieldColumn,
  type KindColumns,
  type U64,
} from "@cg/schema/core";
import { type ColumnBuffer, type ColumnData, columnBuffer } from "./column-buffer.js";
import type { Table } from "./tables.js";

export const CHUNK_ROWS = 2048;

/** Receives a filled chunk: one data per column of the table, `rows` rows. */
export type ChunkSink = (columns: ColumnData[], rows: number) => void;

/** Stores one row: `run_id`, then each column's property of the record. */
type RowWriter = (
  buffers: readonly ColumnBuffer[],
  row: number,
  runId: string,
  record: Readonly<Record<string, unknown>>,
) => void;

/**
 * The row writer of a table, compiled once from its column list: one statement per column with a
 * fixed property name and buffer, so each property read and each buffer call sees one shape (a
 * loop over column names reads every property by a computed key, which is several times slower
 * per cell). Column names come from the dataset layout, never from input.
 */
function rowWriter(table: Table): RowWriter {
  const statements = table.columns.map((column, index) =>
    index === 0
      ? "buffers[0].set(row, runId);"
      : `buffers[${index}].set(row, record[${JSON.stringify(column.name)}]);`,
  );
  return new Function("buffers", "row", "runId", "record", statements.join("\n")) as RowWriter;
}

/** Stores one row from a batch's columns: `run_id`, then each column's wire field. */
type ColumnRowCopier = (
  buffers: readonly ColumnBuffer[],
  at: number,
  runId: string,
  batch: ColumnBatch,
  row: number,
  strings: readonly string[],
  resolve: (shape: readonly U64[], dtype: string) => U64,
) => void;

const resolveStorage = (shape: readonly U64[], dtype: string): U64 =>
  resolveStorageBytes(undefined, shape, dtype);

/**
 * The copier of a table from one batch's columns of its kind, compiled like `rowWriter`: one
 * statement per column reading its typed column by the field's type (strings from the batch's
 * dictionary, u64 exact, absent as undefined), so no value passes through a generic reader. Field
 * positions and types come from the layout table, never from input.
 */
function columnRowCopier(table: Table, columns: KindColumns): ColumnRowCopier {
  const fields: FieldColumn[] = [];
  const fieldOf = (key: string): string => {
    const field = columns.byKey.get(key);
    if (field === undefined) throw new Error(`table ${table.name}: no wire field ${key} in the batch`);
    fields.push(field);
    return `fields[${fields.length - 1}]`;
  };
  const u64 = (field: string) =>
    `(v = ${field}.values[row], v >= 0 ? v : v === ${EXACT_U64} ? ${field}.exact.get(row) : undefined)`;
  const statements = table.columns.map((column, index) => {
    if (index === 0) return "buffers[0].set(at, runId);";
    if (column.key === undefined)
      throw new Error(`table ${table.name}: column ${column.name} has no wire key`);
    const field = fieldOf(column.key);
    const type = (columns.byKey.get(column.key) as FieldColumn).type;
    let value: string;
    switch (type) {
      case "string":
        value = `(v = ${field}.values[row], v === ${ABSENT_ID} ? undefined : strings[v])`;
        break;
      case "enum":
        value = `(v = ${field}.values[row], v === ${ABSENT_ENUM} ? undefined : ${field}.variants[v])`;
        break;
      case "boolean":
        value = `${field}.values[row] === 1`;
        break;
      case "f64":
        value = `(v = ${field}.values[row], v !== v ? undefined : v)`;
        break;
      case "u64":
        value = column.resolvedFromShape
          ? `(w = ${u64(field)}, w !== undefined ? w : resolve(batch.value(${fieldOf("shape")}, row), strings[${fieldOf("dtype")}.values[row]]))`
          : u64(field);
        break;
      case "strings":
      case "shape": {
        // Straight from the flat column into the list's elements: no array per row.
        const element =
          type === "strings"
            ? `strings[${field}.flat[k]]`
            : `(y = ${field}.flat[k], y === ${EXACT_U64} ? ${field}.exact.get(k) : y)`;
        return [
          `v = ${field}.offsets[row]; w = ${field}.offsets[row + 1];`,
          `x = buffers[${index}].openList(at, w - v); c = buffers[${index}].child;`,
          `for (let k = v; k < w; k++) c.set(x + k - v, ${element});`,
        ].join("\n");
      }
      default:
        // Maps (one meta per trace): the object as the event holds it.
        value = `batch.value(${field}, row)`;
    }
    return `buffers[${index}].set(at, ${value});`;
  });
  const body = `let v, w, x, y, c;\n${statements.join("\n")}`;
  // The fields are bound once: each call reads them as constants of the function.
  return new Function(
    "fields",
    `return (buffers, at, runId, batch, row, strings, resolve) => {\n${body}\n};`,
  )(fields) as ColumnRowCopier;
}

export class TableRows {
  readonly table: Table;
  readonly #buffers: ColumnBuffer[];
  readonly #writeRow: RowWriter;
  readonly #sink: ChunkSink;
  /** Chunks leave with their buffers (to be transferred to another thread), or are copied from them. */
  readonly #detach: boolean;
  #rows = 0;
  /** Pending rows before the current run's first. */
  #runStart = 0;
  #runId: string | undefined;
  /** The copier for the batch columns seen last (a reader reuses its batch). */
  #copier: { columns: KindColumns; copy: ColumnRowCopier } | undefined;

  constructor(table: Table, sink: ChunkSink, options: { detach: boolean }) {
    this.table = table;
    this.#sink = sink;
    this.#detach = options.detach;
    this.#buffers = table.columns.map((column) => columnBuffer(column.type, CHUNK_ROWS));
    this.#writeRow = rowWriter(table);
  }

  /** The run the next rows belong to. */
  set runId(runId: string) {
    this.#runId = runId;
    this.#runStart = this.#rows;
  }

  /**
   * Adds one row: each column's value is the record's property of the column's name (an event
   * for the event tables); absent is NULL.
   */
  push(record: Readonly<Record<string, unknown>>): void {
    const runId = this.#runId;
    if (runId === undefined) throw new Error(`rows for ${this.table.name} before the run's meta event`);
    this.#writeRow(this.#buffers, this.#rows, runId, record);
    if (++this.#rows >= CHUNK_ROWS) this.emit();
  }

  /**
   * Adds one row read from a batch's columns of the table's kind (`columns`, row `row`): each
   * column's wire field, no event object. A storage-bytes column absent on the wire is resolved
   * from the row's shape and dtype, as the reader resolves it for an event.
   */
  pushColumns(batch: ColumnBatch, columns: KindColumns, row: number): void {
    const runId = this.#runId;
    if (runId === undefined) throw new Error(`rows for ${this.table.name} before the run's meta event`);
    if (this.#copier?.columns !== columns) {
      this.#copier = { columns, copy: columnRowCopier(this.table, columns) };
    }
    this.#copier.copy(this.#buffers, this.#rows, runId, batch, row, batch.strings, resolveStorage);
    if (++this.#rows >= CHUNK_ROWS) this.emit();
  }

  /** Drops the current run's rows not yet handed to the sink. */
  discardRun(): void {
    for (const buffer of this.#buffers) buffer.truncate(this.#runStart);
    this.#rows = this.#runStart;
  }

  /** Takes back the buffers of a chunk handed to the sink detached, once they were copied. */
  recycle(columns: readonly ColumnData[]): void {
    for (let index = 0; index < columns.length; index++) {
      (this.#buffers[index] as ColumnBuffer).recycle(columns[index] as ColumnData);
    }
  }

  /** Hands the pending rows, if any, to the sink. */
  emit(): void {
    const rows = this.#rows;
    if (rows === 0) return;
    const columns = this.#buffers.map((buffer) => buffer.take(rows, this.#detach));
    this.#rows = 0;
    this.#runStart = 0;
    this.#sink(columns, rows);
  }
}

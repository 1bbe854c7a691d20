// Rows of one table gathered column by column into typed buffers, a data chunk (2,048 rows,
// DuckDB's vector size) at a time: each full chunk is handed to a sink as plain column data, which
// writes it into DuckDB on this thread (table-writer.ts) or posts it to the thread that does
// (ingest-worker.ts). No JS object is made per row or cell, and nothing here touches DuckDB.
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
